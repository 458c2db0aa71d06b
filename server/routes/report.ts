/**
 * /api/report/v1: reports (issue #8). The workflow table and one route per declared
 * action, all through the engine's one `perform` (server/report/engine.ts); a
 * report's detail with the actions the caller may take, its lock state and
 * operation record; batch unlock; the work lists; the notice counts. Templates are
 * in ./reportTemplate.ts. A report is addressed by its exam's id (they share it).
 *
 *   GET  /report/workflow                     the state machine (session)
 *   GET  /report/detail/:id                   report + exam header + allowed actions
 *   GET  /report/lockState/:id                who holds the lock, until when
 *   POST /report/<action>/:id                 each action of config/workflows/report.json
 *   GET  /report/assignees/:id, superiors/:id the choices of the assign and submit-to-superior dialogs
 *   POST /report/batchUnlock                  {ids} → {unlocked, refused}
 *   GET  /report/logs/:id                     the exam's operation record
 *   POST /report/list/{write,review,print,mine,all}   paged lists ({model: report|remote})
 *   POST /remote/list/{write,review,done,all}         the remote centre's worklist (/remote)
 *   GET  /notice?model=report|remote          {unwritten, firstTrial, retrialBack, reportReturn, crisis, overdue}
 *   GET  /report/due                          {near, overdue, total}: reports sent up near or past their turnaround limit
 *   /crisisValue/*                            critical-value notices (./reportCrisis.ts)
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthContext } from '../identity/sessions';
import { hasPermission } from '../identity/access';
import { AppError } from '../lib/errors';
import { listBodySchema, runList, type ListBody } from '../lib/list';
import { refusals } from '../lib/http';
import { ok, replies } from '../lib/reply';
import { dropNulls } from '../lib/resource';
import { caller } from '../plugins/auth';
import type { AuditDeclaration } from '../plugins/audit';
import { BATCH_BODY, BATCH_REFUSED, CONTENT_FIELDS, loadReport, modeOf, perform, performEach, type ActionInput, type ReportContent, type ReportRow } from '../report/engine';
import { centreDoctors, qualifiedDoctors, superiorChoices } from '../report/guards';
import { noticeCounts } from '../report/notice';
import { OverdueSweeper } from '../report/turnaround';
import { dueCounts, HEADER_FIELDS, LIST_RIGHTS, listRow, listSpec, pageActions, loadDetail, operationRecord, REMOTE_KINDS, reportView, withWorkFilter, type ListKind, type Model } from '../report/read';
import { actionKeys, WORKFLOW } from '../report/workflow';
import { masker } from '../identity/gradeSafety';
import reportCrisisRoutes from './reportCrisis';
import reportTemplateRoutes from './reportTemplate';
import reportPrintRoutes from './reportPrint';
import type { ReportAction } from '../../src/shared/generated/entities/reportAction';
import { idParams, pick } from '../lib/schemas';

/** A workflow action as the audit trail records it: the lock's renewal every 40 s is the open page's heartbeat, not an access of its own. */
function workflowAudit(name: string): AuditDeclaration {
  if (name === 'renew') return 'none';
  const action = name === 'print' ? 'print' : name === 'unlock' ? 'unlock' : 'workflow';
  return { action, object: 'report', id: 'params.id', patient: 'exam' };
}
/**
 * GET report/detail/:id and every action's answer: the report's fields (entities/report.json),
 * how the caller works on it, what they may do now, and its exam's header.
 */
const DETAIL = {
  allOf: [
    { $ref: 'entities/report.json' },
    {
      type: 'object',
      required: ['id', 'version', 'mode', 'actions', 'exam'],
      properties: {
        // Always there in a detail (optional in the entity, which also describes a report being written).
        id: { $ref: 'entities/report.json#/properties/id' },
        version: { $ref: 'entities/report.json#/properties/version' },
        mode: { type: 'string', enum: ['own', 'remote'], description: 'own: the report of a hospital in scope; remote: sent to the caller\'s centre' },
        lockMine: { type: 'boolean' },
        actions: { type: 'array', items: { type: 'string' }, description: 'The workflow actions the caller may take now' },
        exam: pick('entities/exam.json', HEADER_FIELDS, { required: ['id'] }),
      },
    },
  ],
};
/** How the lock stands: the detail's lock fields and its version. */
const LOCK_STATE = pick('entities/report.json', ['lockState', 'lockedByName', 'lockedById', 'lockExpiresAt', 'version'], { required: ['version'], extra: { lockMine: { type: 'boolean' } } });
/** A work list's page: rows of entities/reportRow.json, each with the actions the caller may take on it now. */
const listReply = replies({
  type: 'object',
  required: ['list', 'total'],
  properties: {
    list: {
      type: 'array',
      items: {
        allOf: [
          { $ref: 'entities/reportRow.json' },
          { type: 'object', required: ['id', 'actions'], properties: { actions: { type: 'array', items: { type: 'string' }, description: 'The workflow actions the caller may take now' } } },
        ],
      },
    },
    total: { type: 'integer' },
  },
});

/** Viewing a report needs the view right of the module the caller works on it in (own: report, sent to the caller: remote; an assignee: myReport). */
function assertSees(report: ReportRow, me: AuthContext, right: 'view' | 'operationRecord'): void {
  const module = modeOf(report, me) === 'remote' ? 'remote' : 'report';
  if (hasPermission(me.permissions, `${module}:${right}`)) return;
  if (right === 'view' && report.assignees.some((a) => a.userId === me.userId) && hasPermission(me.permissions, 'myReport:view')) return;
  throw new AppError('UAA103');
}

export default async function reportRoutes(fastify: FastifyInstance) {
  await fastify.register(reportTemplateRoutes);
  await fastify.register(reportCrisisRoutes);
  await fastify.register(reportPrintRoutes);

  const detail = async (id: number, me: AuthContext) => {
    const { row, header, gradeSafety } = await loadDetail(fastify.db, id, me);
    assertSees(row, me, 'view');
    return { ...reportView(row, me), exam: masker(me, gradeSafety)(header) };
  };

  fastify.get(
    '/report/workflow',
    {
      config: { session: true, audit: 'none' },
      schema: { tags: ['report'], summary: 'The report state machine (config/workflows/report.json, schemas/workflow.json): states, actions, rights, guards, log types', response: replies({ $ref: 'workflow.json' }) },
    },
    async () => ok(WORKFLOW),
  );

  fastify.get<{ Params: { id: number } }>(
    '/report/detail/:id',
    {
      config: { permission: ['report:view', 'remote:view', 'myReport:view'], scoped: { resource: 'report', param: 'id' }, audit: { action: 'read', object: 'report', id: 'params.id', patient: 'exam' } },
      schema: {
        tags: ['report'],
        summary: 'The report of exam :id (entities/report.json fields, version, lock), its exam header, and `actions`: what the caller may do now',
        params: idParams,
        response: replies(DETAIL),
      },
    },
    async (request) => ok(await detail(request.params.id, caller(request))),
  );

  fastify.get<{ Params: { id: number } }>(
    '/report/lockState/:id',
    {
      config: { permission: ['report:view', 'remote:view', 'myReport:view'], scoped: { resource: 'report', param: 'id' }, audit: 'none' },
      schema: { tags: ['report'], summary: 'Whether the report is locked, by whom, until when', params: idParams, response: replies(LOCK_STATE) },
    },
    async (request) => {
      const me = caller(request);
      const row = await loadReport(fastify.db, request.params.id, me);
      assertSees(row, me, 'view');
      const v = reportView(row, me);
      return ok({ lockState: v.lockState, lockedByName: v.lockedByName, lockedById: v.lockedById, lockExpiresAt: v.lockExpiresAt, lockMine: v.lockMine, version: v.version });
    },
  );

  // One route per declared action: the table is the only list of them (but those the platform performs by itself, `on` an event).
  for (const [name, action] of Object.entries(WORKFLOW.actions)) {
    if (action.on) continue;
    fastify.post<{ Params: { id: number }; Body: ReportAction; Headers: { 'idempotency-key'?: string } }>(
      `/report/${name}/:id`,
      {
        config: { permission: actionKeys(action), scoped: { resource: 'report', param: 'id' }, audit: workflowAudit(name) },
        schema: {
          tags: ['report'],
          summary: `${action.description} (workflow action "${name}"; answers the report as detail does)`,
          params: idParams,
          headers: { type: 'object', properties: { 'idempotency-key': { type: 'string', minLength: 1, maxLength: 64 } } },
          body: { $ref: 'entities/reportAction.json' },
          // replayed: the Idempotency-Key was seen before, and this is that call's outcome, not a second one.
          response: replies({ allOf: [DETAIL, { type: 'object', properties: { replayed: { type: 'boolean' } } }] }),
        },
      },
      async (request) => {
        const me = caller(request);
        const body = (request.body ?? {}) as ReportAction;
        const content: ReportContent = {};
        for (const f of CONTENT_FIELDS) if (body[f] !== undefined) (content as Record<string, unknown>)[f] = body[f];
        const input: ActionInput = { version: body.version, reason: body.reason, confirm: body.confirm, doctorIds: body.doctorIds, hospitalId: body.hospitalId, content };
        const { replayed } = await perform(fastify.db, me, request.params.id, name, input, request.headers['idempotency-key']);
        return ok({ ...(await detail(request.params.id, me)), replayed });
      },
    );
  }

  // The choices the assign and submit-to-superior dialogs offer; the guards judge the same lists when the action is sent.
  const choiceReply = replies({ type: 'object', required: ['list'], properties: { list: { type: 'array', items: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' }, name: { type: 'string' } } } }, chosen: { type: 'integer' } } });
  fastify.get<{ Params: { id: number } }>(
    '/report/assignees/:id',
    {
      config: { permission: actionKeys(WORKFLOW.actions.assign), scoped: { resource: 'report', param: 'id' }, audit: 'none' },
      schema: { tags: ['report'], summary: "Doctors the report may be assigned to now: active, of its hospitals, with the right its next step needs ({list: [{id, name}]})", params: idParams, response: choiceReply },
    },
    async (request) => ok({ list: await qualifiedDoctors(fastify.db, await loadReport(fastify.db, request.params.id, caller(request))) }),
  );
  fastify.get<{ Params: { id: number } }>(
    '/report/centreDoctors/:id',
    {
      config: { permission: actionKeys(WORKFLOW.actions.reassign), scoped: { resource: 'report', param: 'id' }, audit: 'none' },
      schema: { tags: ['report'], summary: "Doctors of the remote centre a lead may reassign the report to: active, of the hospital it was sent to, serving its hospital, with the right its next step needs ({list: [{id, name}]})", params: idParams, response: choiceReply },
    },
    async (request) => ok({ list: await centreDoctors(fastify.db, await loadReport(fastify.db, request.params.id, caller(request))) }),
  );
  fastify.get<{ Params: { id: number } }>(
    '/report/superiors/:id',
    {
      config: { permission: [...new Set([...actionKeys(WORKFLOW.actions.submitSuperiorWrite), ...actionKeys(WORKFLOW.actions.submitSuperiorReview)])], scoped: { resource: 'report', param: 'id' }, audit: 'none' },
      schema: { tags: ['report'], summary: "Higher-level hospitals the report may be sent to ({list: [{id, name}], chosen: the exam's registered superior})", params: idParams, response: choiceReply },
    },
    async (request) => {
      const row = await loadReport(fastify.db, request.params.id, caller(request));
      return ok(dropNulls({ list: await superiorChoices(fastify.db, row), chosen: row.exam_superior_hospital_id }));
    },
  );

  fastify.post<{ Body: { ids: number[] } }>(
    '/report/batchUnlock',
    {
      config: { permission: ['report:unlock', 'remote:unlock'], audit: { action: 'unlock', object: 'report', id: 'body.ids' } },
      schema: {
        tags: ['report'],
        summary: 'Unlock several reports; each is judged alone (the workflow action "unlock"): {unlocked: ids, refused: [{id, status, message}]}',
        body: BATCH_BODY,
        response: replies({
          type: 'object',
          required: ['unlocked', 'refused'],
          properties: {
            unlocked: { type: 'array', items: { type: 'integer' } },
            refused: BATCH_REFUSED,
          },
        }),
      },
    },
    async (request) => {
      const { done, refused } = await performEach(fastify.db, caller(request), request.body.ids, 'unlock');
      return ok({ unlocked: done, refused: refusals(request, refused) });
    },
  );

  fastify.get<{ Params: { id: number } }>(
    '/report/logs/:id',
    {
      config: { permission: ['report:operationRecord', 'remote:operationRecord'], scoped: { resource: 'report', param: 'id' }, audit: { action: 'read', object: 'reportLog', id: 'params.id', patient: 'exam' } },
      schema: {
        tags: ['report'],
        summary: "The exam's operation record (entities/reportOperationLog.json entries, newest first): exam and report operations",
        params: idParams,
        response: replies({ type: 'object', required: ['list'], properties: { list: { type: 'array', items: { $ref: 'entities/reportOperationLog.json' } } } }),
      },
    },
    async (request) => {
      const me = caller(request);
      const row = await loadReport(fastify.db, request.params.id, me);
      assertSees(row, me, 'operationRecord');
      return ok({ list: await operationRecord(fastify.db, request.params.id) });
    },
  );

  /** One work list for the caller: the rows of the kind in the model, each with the workflow actions the caller may take on it now. */
  async function workList(request: FastifyRequest<{ Body: ListBody & { model?: Model } }>, kind: ListKind, model: Model | undefined) {
    const me = caller(request);
    const def = LIST_RIGHTS[kind];
    const module = def.module === 'report' && model === 'remote' ? 'remote' : def.module;
    if (!def.rights.some((r) => hasPermission(me.permissions, `${module}:${r}`))) throw new AppError('UAA103');
    const { list, total } = await runList<Record<string, unknown>>(fastify.db, listSpec(kind, model, me), withWorkFilter(request.body), me.scope);
    // The grade-safety setting came with the rows (read.ts LIST_FIELDS, "_gradeSafety"); no rows, nothing to mask.
    const mask = masker(me, list[0]?._gradeSafety === true);
    // config/workflows/report.json decides the actions.
    const actions = pageActions(me);
    return ok({ list: list.map((row) => mask(listRow(row, actions))), total });
  }

  for (const [kind, def] of Object.entries(LIST_RIGHTS) as Array<[ListKind, (typeof LIST_RIGHTS)[ListKind]]>) {
    const keys = def.module === 'report' ? def.rights.flatMap((r) => [`report:${r}`, `remote:${r}`]) : def.rights.map((r) => `${def.module}:${r}`);
    fastify.post<{ Body: ListBody & { model?: Model } }>(
      `/report/list/${kind}`,
      {
        config: { permission: keys, audit: { action: 'search', object: 'report' } },
        schema: {
          tags: ['report'],
          summary: `${def.summary} (paged, sorted, filtered, within the data scope; model remote: the remote centre's)`,
          body: { ...listBodySchema, properties: { ...listBodySchema.properties, model: { type: 'string', enum: ['report', 'remote'] } } },
          response: listReply,
        },
      },
      (request) => workList(request, kind, request.body?.model),
    );
  }

  // The remote centre's worklist (/remote, resource "remote"): reports sent to the caller's hospitals from the
  // hospitals the role serves (remote-centre authorization), a claimed one only in its claimant's work tabs.
  for (const kind of REMOTE_KINDS) {
    fastify.post<{ Body: ListBody & { model?: Model } }>(
      `/remote/list/${kind}`,
      {
        config: { permission: LIST_RIGHTS[kind].rights.map((r) => `remote:${r}`), audit: { action: 'search', object: 'report' } },
        schema: { tags: ['report'], summary: `The remote centre: ${LIST_RIGHTS[kind].summary} (paged, sorted, filtered)`, body: listBodySchema, response: listReply },
      },
      (request) => workList(request, kind, 'remote'),
    );
  }

  // The overdue sweep of every instance (FOR UPDATE SKIP LOCKED: side by side they share the work).
  const sweeper = new OverdueSweeper(() => fastify.db, 30_000, fastify.log);
  fastify.background.add('overdue sweep', () => sweeper.start());
  fastify.addHook('onClose', async () => sweeper.stop());

  fastify.get(
    '/report/due',
    {
      config: { permission: ['report:view', 'remote:view'], audit: 'none' },
      schema: {
        tags: ['report'],
        summary: 'Reports sent to a superior hospital, from or to the caller\'s hospitals, near or past their turnaround limit now (the home page figure)',
        response: replies({
          type: 'object',
          required: ['near', 'overdue', 'total'],
          properties: { near: { type: 'integer' }, overdue: { type: 'integer' }, total: { type: 'integer' } },
        }),
      },
    },
    async (request) => ok(await dueCounts(fastify.db, caller(request))),
  );

  fastify.get<{ Querystring: { model: Model } }>(
    '/notice',
    {
      config: { permission: ['report:view', 'remote:view'], audit: 'none' },
      schema: {
        tags: ['report'],
        summary: "Notice counts in the caller's scope: unwritten, firstTrial (to review), retrialBack (rejected to the writer), reportReturn (returned); crisis: critical values waiting for the caller's acknowledgement",
        querystring: { type: 'object', required: ['model'], properties: { model: { type: 'string', enum: ['report', 'remote'] } } },
        response: replies({
          type: 'object',
          required: ['unwritten', 'firstTrial', 'retrialBack', 'reportReturn'],
          properties: {
            unwritten: { type: 'integer' },
            firstTrial: { type: 'integer' },
            retrialBack: { type: 'integer' },
            reportReturn: { type: 'integer' },
            crisis: { type: 'integer' },
            overdue: { type: 'integer', description: 'Model remote: sent to the caller\'s hospitals and past their turnaround limit' },
          },
        }),
      },
    },
    async (request) => {
      const me = caller(request);
      const { model } = request.query;
      if (!hasPermission(me.permissions, `${model}:view`)) throw new AppError('UAA103');
      return ok(await noticeCounts(fastify.db, model, me));
    },
  );
}
