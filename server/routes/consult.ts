/**
 * The consult service (/api/consult/v1, spec section 7 "Tele-consultation"), HTTP only;
 * the rules are server/consult/domain.ts and workflow.ts:
 *   POST consultation/list/applied|worklist  my applications / my worklist (rows carry their actions)
 *   GET  consultation/detail/:id             the detail: exams, materials, experts, report, log, actions
 *   GET  consultation/:id                    what the video room needs: id, meetingId, state, participants
 *   POST consultation/save                   an application (entities/consultationApply.json), sent for review
 *   POST consultation/action/:action         a workflow action {id, version, reason?, findings?, opinion?, form?}
 *   GET  consultation/:id/material/:fileId   a material's content, to whoever may read the consultation
 *   GET  consultation/:id/report/print       the report's printed sheet (the applying hospital's layout)
 *   POST consultation/log/list               the operation log (/operationLog)
 *   GET  counts, GET notice                  the counts over the lists; my unread notices
 *   GET  expert/avatar/:id                   an expert's avatar (uploaded as the file purpose expertAvatar)
 * The meeting id is bound when the video room is started (POST video/room, ./video.ts):
 * no call of its own.
 * Experts are a table resource (config/resources.json `expert`).
 */
import type { FastifyInstance } from 'fastify';
import {
  consultationRow,
  counts,
  expertChoices,
  consultableExams,
  consultingHospitals,
  detail,
  expertAvatarFile,
  LIST_KINDS,
  LOG_LIST,
  materialOf,
  myNotices,
  NOTICE_KINDS,
  readableWhere,
  readNotices,
  recordPrint,
  roomInfo,
  saveApplication,
  listSpec,
  useSmsProvider,
  type Application,
} from '../consult/domain';
import { ACTION_NAMES, consultActions, performConsultAction, type ConsultInput } from '../consult/workflow';
import { consultSheet } from '../consult/print';
import { createSmsProvider } from '../identity/sms';
import { openFile, openKeptFile } from '../files/service';
import { listBodySchema, runList, type ListBody } from '../lib/list';
import { ok, replies, sendInline } from '../lib/reply';
import { dropNulls } from '../lib/resource';
import { closed, common, idParams, pick } from '../lib/schemas';
import { caller } from '../plugins/auth';

const BASE = '/consultation';
const ANY_CONSULT = ['consult:view', 'consult:start', 'consult:join', 'consult:audit'];
/** What a consultation's detail sends of it (server/consult/domain.ts detail), each field as entities/consultation.json declares it. */
const CONSULT_FIELDS = ['id', 'consultNo', 'title', 'applyHospitalId', 'applyHospitalName', 'consultHospitalId', 'consultHospitalName', 'applicantId', 'applicantName', 'status', 'reportStatus', 'version', 'startTime', 'endTime', 'topic', 'clinicalQuestion', 'meetingId', 'patientName', 'sex', 'birthDate', 'clinicalDiagnosis', 'examIds', 'expertIds', 'expertNames', 'reportFindings', 'reportOpinion', 'reportAuthorName', 'reportReviewerName', 'createdAt', 'actions'];
const DETAIL = pick('entities/consultation.json', CONSULT_FIELDS, {
  required: ['id', 'status', 'version', 'actions', 'exams', 'materials', 'experts', 'logs'],
  extra: {
    exams: {
      type: 'array',
      items: pick('entities/exam.json', ['id', 'examCode', 'modality', 'examState', 'examTime', 'itemNames', 'hospitalName'], { required: ['id'], extra: { patientName: { $ref: 'entities/exam.json#/properties/hisPatientName' } } }),
    },
    materials: {
      type: 'array',
      items: {
        type: 'object',
        required: ['fileId', 'type', 'size'],
        properties: { fileId: { type: 'string', format: 'uuid' }, type: { $ref: 'codes/attachmentType.json' }, name: { type: 'string' }, mime: { type: 'string' }, size: { type: 'integer' } },
        additionalProperties: false,
      },
    },
    experts: {
      type: 'array',
      items: pick('entities/expert.json', ['id', 'name', 'mobile', 'departmentName', 'title', 'labels', 'specialty', 'avatar', 'userId'], { required: ['id', 'name'], extra: { hospitalName: { type: 'string' } } }),
    },
    logs: { type: 'array', items: pick('entities/consultationLog.json', ['id', 'action', 'fromState', 'toState', 'userName', 'reason', 'operateTime'], { required: ['id', 'action', 'operateTime'] }) },
  },
});
/** What saving or acting on a consultation answers: its id, and whether this was a call already applied (the same Idempotency-Key). */
const idReply = replies({ type: 'object', required: ['id'], properties: { id: { type: 'integer' }, replayed: { type: 'boolean' } } });
/** A list row: the detail's consultation fields (the same SELECT, server/consult/domain.ts) with the caller's actions. */
const listReply = replies(
  closed({ list: { type: 'array', items: pick('entities/consultation.json', CONSULT_FIELDS, { required: ['id', 'consultNo', 'status', 'version', 'actions'] }) }, total: { type: 'integer' } }),
);
const LOG_FIELDS = ['id', 'consultationId', 'consultNo', 'action', 'fromState', 'toState', 'userName', 'reason', 'operateTime'];
const logListReply = replies(
  closed({ list: { type: 'array', items: pick('entities/consultationLog.json', LOG_FIELDS, { required: ['id', 'consultationId', 'action', 'operateTime'] }) }, total: { type: 'integer' } }),
);
/** A choice of the application wizard: the row's id and its label. */
const OPTION = { value: common('id'), label: { type: 'string' } };
const optionsReply = replies({ type: 'array', items: closed(OPTION) });

export default async function consultRoutes(fastify: FastifyInstance) {
  useSmsProvider(createSmsProvider(fastify.config.identity, fastify.log));

  for (const kind of LIST_KINDS) {
    fastify.post<{ Body: ListBody }>(
      `${BASE}/list/${kind}`,
      {
        config: { permission: kind === 'applied' ? 'consult:start' : ['consult:join', 'consult:audit'], audit: { action: 'search', object: 'consultation' } },
        schema: { tags: ['consult'], summary: kind === 'applied' ? 'The consultations I applied for' : 'The consultations I am invited to or manage', body: listBodySchema, response: listReply },
      },
      async (request) => {
        const me = caller(request);
        const { list, total } = await runList<Record<string, unknown>>(fastify.db, listSpec(kind, me), request.body ?? {}, undefined);
        const rows = [];
        for (const row of list) {
          const stored = await consultationRow(fastify.db, row.id as number, me);
          rows.push(dropNulls({ ...row, actions: await consultActions(fastify.db, stored, me) }));
        }
        return ok({ list: rows, total });
      },
    );
  }

  fastify.get<{ Params: { id: number } }>(
    `${BASE}/detail/:id`,
    {
      config: { permission: ANY_CONSULT, audit: { action: 'read', object: 'consultation', id: 'params.id' } },
      schema: { tags: ['consult'], summary: 'One consultation with its exams, materials, experts, report, operation log and the actions the caller may take', params: idParams, response: replies(DETAIL) },
    },
    async (request) => {
      const me = caller(request);
      const found = await detail(fastify.db, request.params.id, me);
      const row = await consultationRow(fastify.db, request.params.id, me);
      await readNotices(fastify.db, me, row.id);
      return ok(dropNulls({ ...found, actions: await consultActions(fastify.db, row, me) }));
    },
  );

  fastify.get<{ Params: { id: number } }>(
    `${BASE}/:id`,
    {
      config: { permission: ANY_CONSULT, audit: { action: 'read', object: 'consultation', id: 'params.id' } },
      schema: {
        tags: ['consult'],
        summary: 'What the video room needs: id, number, topic, meetingId, state and participants (user ids, expert ids)',
        params: idParams,
        response: replies({
          type: 'object',
          required: ['id', 'state', 'participants'],
          properties: {
            id: { type: 'integer' },
            consultNo: { type: 'string' },
            topic: { type: 'string' },
            meetingId: { type: ['string', 'null'] },
            state: { type: 'integer' },
            participants: { type: 'object', properties: { userIds: { type: 'array', items: { type: 'integer' } }, expertIds: { type: 'array', items: { type: 'integer' } } } },
          },
        }),
      },
    },
    async (request) => ok(await roomInfo(fastify.db, request.params.id, caller(request))),
  );

  fastify.post<{ Body: Application }>(
    `${BASE}/save`,
    {
      config: { permission: 'consult:start', audit: { action: 'save', object: 'consultation', id: 'reply' } },
      schema: { tags: ['consult'], summary: 'Apply for a consultation: saved and sent for review (a revoked one is edited by the action edit)', body: { $ref: 'entities/consultationApply.json' }, response: idReply },
    },
    async (request) => {
      const me = caller(request);
      const id = await saveApplication(fastify.db, me, request.body);
      await performConsultAction(fastify.db, me, id, 'submit', { version: (await consultationRow(fastify.db, id, me)).version });
      return ok({ id });
    },
  );

  fastify.post<{ Params: { action: string }; Body: ConsultInput & { id: number }; Headers: { 'idempotency-key'?: string } }>(
    `${BASE}/action/:action`,
    {
      config: { permission: ['consult:start', 'consult:revoke', 'consult:join', 'consult:audit', 'consult:notifyExperts'], audit: { action: 'save', object: 'consultation', id: 'body.id' } },
      schema: {
        tags: ['consult'],
        summary: 'A workflow action (config/workflows/consultation.json, consultationReport.json) on a consultation',
        params: { type: 'object', required: ['action'], properties: { action: { type: 'string', enum: ACTION_NAMES } } },
        headers: { type: 'object', properties: { 'idempotency-key': { type: 'string', minLength: 1, maxLength: 64 } } },
        body: {
          type: 'object',
          required: ['id'],
          properties: {
            id: { type: 'integer', minimum: 1 },
            version: { type: 'integer', minimum: 1 },
            reason: { type: 'string', maxLength: 2000 },
            findings: { $ref: 'common.json#/definitions/text3000' },
            opinion: { $ref: 'common.json#/definitions/text3000' },
            // The edit of a revoked application (the action declares its form).
            form: { $ref: 'entities/consultationApply.json#/definitions/edit' },
          },
          additionalProperties: false,
        },
        response: idReply,
      },
    },
    async (request) => {
      const { id, ...input } = request.body;
      const { replayed } = await performConsultAction(fastify.db, caller(request), id, request.params.action, input, request.headers['idempotency-key']);
      return ok({ id, replayed });
    },
  );

  fastify.get<{ Params: { id: number; fileId: string } }>(
    `${BASE}/:id/material/:fileId`,
    {
      config: { permission: ANY_CONSULT, audit: { action: 'download', object: 'consultation', id: 'params.id' } },
      schema: {
        tags: ['consult'],
        summary: "A material's content (inline: images and PDF preview in the browser)",
        params: { type: 'object', required: ['id', 'fileId'], properties: { id: { type: 'integer', minimum: 1 }, fileId: { type: 'string', format: 'uuid' } } },
      },
    },
    async (request, reply) => {
      const fileId = await materialOf(fastify.db, request.params.id, request.params.fileId, caller(request));
      const { meta, content } = await openKeptFile(fastify.db, fastify.storage, fileId);
      return sendInline(reply, meta, content);
    },
  );

  fastify.get<{ Params: { id: number }; Querystring: { v?: string } }>(
    '/expert/avatar/:id',
    {
      config: { permission: ['expert:view', ...ANY_CONSULT], audit: 'none' },
      schema: {
        tags: ['consult'],
        summary: "An expert's avatar (uploaded through the file service as purpose expertAvatar), to whoever lists experts or takes part in consultations",
        params: idParams,
        querystring: { type: 'object', properties: { v: { type: 'string', maxLength: 64 } } },
      },
    },
    async (request, reply) => {
      const fileId = await expertAvatarFile(fastify.db, request.params.id);
      // The file service judges the reader (the expert owner kind's read rights).
      const { meta, content } = await openFile(fastify.db, fastify.storage, caller(request), fileId);
      return sendInline(reply, meta, content);
    },
  );

  fastify.get<{ Params: { id: number } }>(
    `${BASE}/:id/report/print`,
    {
      config: { permission: ANY_CONSULT, audit: { action: 'read', object: 'printSheet', id: 'params.id' } },
      schema: { tags: ['consult'], summary: "The consultation report's printed sheet, in the applying hospital's layout (approved reports print)", params: idParams, response: replies({ $ref: 'printSheet.json' }) },
    },
    async (request) => ok(await consultSheet(fastify.db, request.params.id, caller(request))),
  );

  fastify.post<{ Params: { id: number } }>(
    `${BASE}/:id/report/printed`,
    {
      config: { permission: ANY_CONSULT, audit: { action: 'print', object: 'consultation', id: 'params.id' } },
      schema: { tags: ['consult'], summary: 'Record that the approved report was printed (operation log)', params: idParams, response: idReply },
    },
    async (request) => {
      await recordPrint(fastify.db, caller(request), request.params.id);
      return ok({ id: request.params.id });
    },
  );

  fastify.post<{ Body: ListBody }>(
    `${BASE}/log/list`,
    {
      config: { permission: ANY_CONSULT, audit: { action: 'search', object: 'consultationLog' } },
      schema: { tags: ['consult'], summary: 'The operation log of the consultations the caller may read, newest first', body: listBodySchema, response: logListReply },
    },
    async (request) => {
      const me = caller(request);
      const { list, total } = await runList(fastify.db, { ...LOG_LIST, where: readableWhere(me) }, request.body ?? {}, undefined);
      return ok({ list: list.map(dropNulls), total });
    },
  );

  fastify.get<{ Querystring: { hospitalId?: number; title?: number; keyword?: string } }>(
    '/expertChoice/options',
    {
      config: { permission: 'consult:start', audit: 'none' },
      schema: {
        tags: ['consult'],
        summary: "The open experts an applicant may invite, of a consulting hospital (any hospital of the region), by title or a keyword of name, department or specialty; labelled with title, department and specialty",
        querystring: { type: 'object', properties: { hospitalId: { type: 'integer', minimum: 1 }, title: { $ref: 'codes/doctorTitle.json' }, keyword: { type: 'string', maxLength: 32 } } },
        response: replies({ type: 'array', items: closed({ ...OPTION, hospitalName: { type: 'string' } }) }),
      },
    },
    async (request) => ok(await expertChoices(fastify.db, request.query, request.lang)),
  );

  fastify.get(
    '/consultExam/options',
    {
      config: { permission: 'consult:start', audit: 'none' },
      schema: {
        tags: ['consult'],
        summary: 'The exams an applicant may consult on: within their scope, with images, newest first (the application refuses others with PACS100)',
        response: optionsReply,
      },
    },
    async (request) => ok(await consultableExams(fastify.db, caller(request))),
  );

  fastify.get(
    '/consultHospital/options',
    {
      config: { permission: 'consult:start', audit: 'none' },
      schema: {
        tags: ['consult'],
        summary: 'The hospitals an applicant may ask for a consultation: the central hospitals of the region that have open experts',
        response: optionsReply,
      },
    },
    async () => ok(await consultingHospitals(fastify.db)),
  );

  fastify.get(
    '/counts',
    {
      config: { permission: ANY_CONSULT, audit: 'none' },
      schema: {
        tags: ['consult'],
        summary: 'Counts: my applications, my worklist, waiting for my review, my unread notices',
        response: replies(closed({ applied: { type: 'integer' }, worklist: { type: 'integer' }, toReview: { type: 'integer' }, notices: { type: 'integer' } })),
      },
    },
    async (request) => ok(await counts(fastify.db, caller(request))),
  );

  fastify.get(
    '/notice',
    {
      config: { permission: ANY_CONSULT, audit: 'none' },
      schema: {
        tags: ['consult'],
        summary: 'My unread consultation notices (invited, started, report ready), newest first',
        response: replies({
          type: 'array',
          items: closed({
            id: { type: 'integer' },
            kind: { type: 'string', enum: [...NOTICE_KINDS] },
            consultationId: common('id'),
            consultNo: { type: 'string' },
            topic: { type: 'string' },
            createdAt: { type: 'string', format: 'date-time' },
          }),
        }),
      },
    },
    async (request) => ok(await myNotices(fastify.db, caller(request))),
  );
}
