/**
 * /api/ris/v1/exam/send: regional send of an exam's images (../pacs/send.ts owns the
 * rules and runs the worker). Send (or, when one to that destination is running, its
 * status), an exam's send status, the destinations an exam may go to. The exam is read
 * in the caller's data scope first (RIS101 outside it). The send records (resource
 * sendJob, read only: list and detail under /exam/send) for the view sendJob.
 */
import type { FastifyInstance } from 'fastify';
import { ok, replies } from '../lib/reply';
import { caller } from '../plugins/auth';
import { requestSend, SEND_LIST, sendDestinations, sendRecord, sendStatus, SendWorker } from '../pacs/send';
import { dropNulls, registerResource } from '../lib/resource';
import { examRow } from '../exam/domain';

const statusSchema = {
  type: 'object',
  // Every column is selected (server/pacs/send.ts STATUS_SELECT); the nullable ones may be null.
  required: ['id', 'examId', 'destinationId', 'destinationName', 'state', 'total', 'done', 'failed', 'attempts', 'nextAttemptAt', 'createdAt'],
  properties: {
    id: { type: 'integer' },
    examId: { type: 'integer' },
    destinationId: { type: 'integer' },
    destinationName: { type: 'string' },
    state: { type: 'string', enum: ['sending', 'success', 'failure'] },
    total: { type: 'integer' },
    done: { type: 'integer' },
    failed: { type: 'integer' },
    attempts: { type: 'integer' },
    nextAttemptAt: { type: 'string', format: 'date-time' },
    lastError: { type: 'string', nullable: true },
    userName: { type: 'string', nullable: true },
    createdAt: { type: 'string', format: 'date-time' },
    finishedAt: { type: 'string', format: 'date-time', nullable: true },
  },
};

const examIdParams = { type: 'object', required: ['examId'], properties: { examId: { $ref: 'common.json#/definitions/id' } } };

export default async function sendRoutes(fastify: FastifyInstance) {
  const { dicom } = fastify.config;
  const worker = new SendWorker(() => fastify.db, fastify.storage, {
    aeTitle: dicom.aeTitle,
    retrySeconds: dicom.sendRetrySeconds,
    maxAttempts: dicom.sendMaxAttempts,
    log: fastify.log,
  });
  fastify.background.add('regional sends', () => worker.start());
  fastify.addHook('onClose', async () => worker.stop());

  registerResource<{ id?: number }>(fastify, {
    path: 'exam/send',
    tag: 'ris',
    module: 'registration',
    actions: { view: 'send' },
    audit: { object: 'exam' },
    entity: 'entities/sendJob.json',
    notFound: 'RIS101',
    list: SEND_LIST,
    async get(q, id, me) {
      const row = await sendRecord(q, id, me.scope);
      return row && (dropNulls(row) as { id?: number });
    },
  });

  fastify.post<{ Body: { examId: number; destinationId: number } }>(
    '/exam/send',
    {
      config: { permission: 'registration:send', audit: { action: 'export', object: 'exam', id: 'body.examId', patient: 'exam' } },
      schema: {
        tags: ['ris'],
        summary:
          "Send the exam's images to a destination (a send target of its hospital or one serving it; PACS530 otherwise, PACS100 without images). " +
          'A send to that destination still running is answered with its status (started false); after success or failure this is a resend.',
        body: {
          type: 'object',
          required: ['examId', 'destinationId'],
          properties: { examId: { $ref: 'common.json#/definitions/id' }, destinationId: { $ref: 'common.json#/definitions/id' } },
          additionalProperties: false,
        },
        response: replies({ type: 'object', required: ['started', 'status'], properties: { started: { type: 'boolean' }, status: statusSchema } }),
      },
    },
    async (request) => {
      const me = caller(request);
      const exam = await examRow(fastify.db, request.body.examId, me);
      const answer = await requestSend(fastify.db, exam, request.body.destinationId, me);
      if (answer.started) worker.kick();
      return ok(answer);
    },
  );

  fastify.get<{ Params: { examId: number } }>(
    '/exam/send/status/:examId',
    {
      config: { permission: 'registration:send', audit: { action: 'read', object: 'exam', id: 'params.examId', patient: 'exam' } },
      schema: {
        tags: ['ris'],
        summary: "The exam's sends, the newest per destination first: state, instances done and failed of the total, attempts, the last error",
        params: examIdParams,
        response: replies({ type: 'object', required: ['list'], properties: { list: { type: 'array', items: statusSchema } } }),
      },
    },
    async (request) => {
      const exam = await examRow(fastify.db, request.params.examId, caller(request));
      return ok({ list: await sendStatus(fastify.db, exam.id) });
    },
  );

  fastify.get<{ Params: { examId: number } }>(
    '/exam/send/destinations/:examId',
    {
      config: { permission: 'registration:send', audit: 'none' },
      schema: {
        tags: ['ris'],
        summary: 'Where the exam may be sent: the send targets of its hospital and those serving it',
        params: examIdParams,
        response: replies({
          type: 'object',
          required: ['list'],
          properties: {
            list: {
              type: 'array',
              items: {
                type: 'object',
                required: ['id', 'name', 'kind'],
                properties: { id: { type: 'integer' }, name: { type: 'string' }, kind: { type: 'string', enum: ['dicom', 'stow'] } },
              },
            },
          },
        }),
      },
    },
    async (request) => {
      const exam = await examRow(fastify.db, request.params.examId, caller(request));
      return ok({ list: await sendDestinations(fastify.db, exam.hospital_id) });
    },
  );
}
