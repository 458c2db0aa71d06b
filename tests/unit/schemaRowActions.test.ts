/**
 * A view's row actions and the picture upload, as pure functions. Scenarios:
 * - fillPath: {field} takes the record's value, URL-encoded; a missing value (no id
 *   yet) gives no path; pathFields lists the placeholders
 * - visibleRowActions: the user's unlock shows only with system.user:unlock and only on
 *   a row whose lockedUntil has a value; present:false inverts; a row without the
 *   path's values offers nothing; no map, nothing
 * - visibleWhen `in` and lists of conditions: the exam list's check-in (a registered
 *   appointment not yet arrived), terminate (not when terminated), cancel termination
 *   (only when terminated), hide; each with its own right of registration
 * - a view's `actions` map: the exam list's edit needs registration:modifyExam and its
 *   delete registration:deleteExam; views without one keep view/add/edit/delete
 * - runRowAction: the view's method on the filled path through the injected request
 * - open actions (a screen instead of a call): the exam list's history opens
 *   /history?patientId=<encoded>, needs registration:history and a patient id on the
 *   row; rowActionTarget gives nothing for a call, runRowAction refuses an open action
 * - list actions (rows shown in a dialog): the exam list's operation record POSTs
 *   {examId: <the row's id, a number>} with registration:operationRecord and loads
 *   data.list; its columns format date-times, show the log action and the changed
 *   fields as their texts and the detail as "label: value" lines; every text exists
 * - the action column: every action a link while they fit (the default 4); past that
 *   the view's primary order picks the links and the rest go under "more" in the
 *   column's order; on the exam list the links follow the row's state (a booked
 *   patient: check in; terminated: restore; examined with images and an approved
 *   report: view images and print); the column is as wide as its links and "more",
 *   narrower than the 13 links it had (690 px)
 * - imageProblem: type, then file size, then exact pixels (the server's order); the
 *   user view's picture limits are usable, and the expert's avatar (any size); every
 *   problem has its text
 */
import { resources } from '../../locales';
import { policyOf } from '../../server/files/service';
import { imageProblem, isImageLimits, sizeText, typeNames, type ImageLimits, type ImageProblem } from '@/schema/imageCheck';
import { fillPath, pathFields } from '@/shared/schema/pathTemplate';
import { actionRight, ownedRights, viewRights } from '@/schema/permissions';
import {
  loadRowList,
  rowActionAllowed,
  rowActionApplies,
  rowActionTarget,
  rowConditionHolds,
  rowActionTextKey,
  rowListBody,
  actionColumnWidth,
  DEFAULT_INLINE_ACTIONS,
  runRowAction,
  splitRowActions,
  visibleRowActions,
} from '@/schema/rowActions';
import { rowListColumns } from '@/schema/rowList';
import type { RequestFn, RequestOptions } from '@/services/request';
import type { RowAction, View } from '@/shared/schema/types';
import { views } from '@/shared/schema/views';
import { examActions } from '../../server/exam/workflow';
import type { AuthContext } from '../../server/identity/sessions';

const user = views.user;
const unlock = user.rowActions![0];
const admin = { 'system.user': ['view', 'add', 'edit', 'delete', 'unlock'] };
const editor = { 'system.user': ['view', 'edit'] };
const locked = { id: 3, name: '技师小吴', lockedUntil: '2026-11-22T10:00:00.000Z', governed: true };
const free = { id: 4, name: '陈医生', governed: true };

describe('fillPath', () => {
  test('placeholders take the record values, URL-encoded', () => {
    expect(fillPath('/api/ucenter/v1/user/unlock/{id}', { id: 3 })).toBe('/api/ucenter/v1/user/unlock/3');
    expect(fillPath('/api/x/{code}/{id}', { code: 'a/b c', id: 1 })).toBe('/api/x/a%2Fb%20c/1');
    expect(fillPath('/api/health', undefined)).toBe('/api/health');
    expect(pathFields('/api/x/{code}/{id}')).toEqual(['code', 'id']);
  });

  test('no path while a placeholder has no value (a record not saved yet)', () => {
    expect(fillPath('/api/ucenter/v1/user/signature/{id}', {})).toBeUndefined();
    expect(fillPath('/api/ucenter/v1/user/signature/{id}', { id: null })).toBeUndefined();
    expect(fillPath('/api/ucenter/v1/user/signature/{id}', { id: '' })).toBeUndefined();
    expect(fillPath('/api/x/{id}', { id: { nested: 1 } })).toBeUndefined();
  });
});

describe('row actions', () => {
  test('unlock: offered with system.user:unlock on a locked row only', () => {
    expect(visibleRowActions(user, locked, admin)).toEqual([unlock]);
    expect(visibleRowActions(user, free, admin)).toEqual([]);
    expect(visibleRowActions(user, { ...locked, lockedUntil: null }, admin)).toEqual([]);
    expect(visibleRowActions(user, { ...locked, lockedUntil: '' }, admin)).toEqual([]);
    // A user with a membership the caller does not govern (the server's row flag) is not the caller's to unlock.
    expect(visibleRowActions(user, { ...locked, governed: false }, admin)).toEqual([]);
  });

  test('without the right, or without a permission map, nothing is offered', () => {
    expect(rowActionAllowed(user, unlock, admin)).toBe(true);
    expect(rowActionAllowed(user, unlock, editor)).toBe(false);
    expect(visibleRowActions(user, locked, editor)).toEqual([]);
    expect(visibleRowActions(user, locked, null)).toEqual([]);
    expect(visibleRowActions(user, locked, undefined)).toEqual([]);
    // The right is read in the view's module, not in another module's.
    expect(visibleRowActions(user, locked, { report: ['unlock'] })).toEqual([]);
  });

  test('present:false offers the action while the field is empty; a row lacking the path values offers nothing', () => {
    const relock: RowAction = { ...unlock, key: 'lock', visibleWhen: { field: 'lockedUntil', present: false } };
    const view: View = { ...user, rowActions: [unlock, relock] };
    const map = { 'system.user': ['unlock'] };
    expect(visibleRowActions(view, free, map).map((a) => a.key)).toEqual(['lock']);
    expect(visibleRowActions(view, locked, map).map((a) => a.key)).toEqual(['unlock']);
    expect(rowActionApplies(unlock, { lockedUntil: locked.lockedUntil })).toBe(false);
    const plain: RowAction = { key: 'ping', permission: 'view', call: { method: 'GET', path: '/api/ucenter/v1/user/ping/{id}' } };
    expect(visibleRowActions({ ...user, rowActions: [plain] }, free, editor)).toEqual([plain]);
  });

  test('a view without row actions offers none', () => {
    expect(visibleRowActions(views.department, { id: 1 }, { 'system.department': ['view', 'delete'] })).toEqual([]);
  });

  test('texts: entity.<entity>.action.<key>, …Confirm, …Done', () => {
    expect(rowActionTextKey(user, unlock)).toBe('entity.user.action.unlock');
    expect(rowActionTextKey(user, unlock, 'Confirm')).toBe('entity.user.action.unlockConfirm');
    expect(rowActionTextKey(user, unlock, 'Done')).toBe('entity.user.action.unlockDone');
  });

  test('runRowAction calls the view\'s method on the row\'s path', async () => {
    const calls: Array<[string, RequestOptions | undefined]> = [];
    const req = (async (path: string, options?: RequestOptions) => {
      calls.push([path, options]);
      return null;
    }) as RequestFn;
    await runRowAction(unlock, locked, req);
    expect(calls).toEqual([['/api/ucenter/v1/user/unlock/3', { method: 'POST' }]]);
    await expect(runRowAction(unlock, { lockedUntil: 'x' }, req)).rejects.toThrow('lacks a value');
    expect(calls).toHaveLength(1);
  });
});

/** The exam row as the server lists it for a user with these rights: with the workflow actions its engine allows. */
const served = (row: Record<string, unknown>, map: Record<string, string[]>) => ({
  ...row,
  actions: examActions(row, { userId: 9, name: '登记员', hospitalId: 1, permissions: map } as unknown as AuthContext),
});

describe('exam row actions by state', () => {
  const exam = views.exam;
  const clerk = { registration: ['view', 'add', 'modifyExam', 'terminate', 'checkin', 'hide', 'history'] };
  const keys = (row: Record<string, unknown>, map: Record<string, string[]> = clerk) => visibleRowActions(exam, served(row, map), map).map((a) => a.key);
  const walkIn = { id: 1, examState: 1, appointment: false, arrivedAt: '2026-03-14T01:00:00.000Z', hidden: false };
  const booked = { id: 2, examState: 1, appointment: true, arrivedAt: null, hidden: false };

  test('in: the value is one of the list; present still works; a list needs every condition', () => {
    expect(rowConditionHolds({ field: 'examState', in: [1, 2] }, { examState: 2 })).toBe(true);
    expect(rowConditionHolds({ field: 'examState', in: [1, 2] }, { examState: 3 })).toBe(false);
    expect(rowConditionHolds({ field: 'examState', in: [1] }, { examState: '1' })).toBe(false); // no coercion
    expect(rowConditionHolds({ field: 'examState', in: [1] }, {})).toBe(false);
    expect(rowConditionHolds({ field: 'hidden', in: [false] }, { hidden: false })).toBe(true);
    expect(rowConditionHolds({ field: 'arrivedAt', present: false }, { arrivedAt: null })).toBe(true);
    const both: RowAction = { ...exam.rowActions![0], visibleWhen: [{ field: 'examState', in: [1] }, { field: 'appointment', in: [true] }] };
    expect(rowActionApplies(both, { id: 1, examState: 1, appointment: true })).toBe(true);
    expect(rowActionApplies(both, { id: 1, examState: 1, appointment: false })).toBe(false);
  });

  test('a registered walk-in: terminate and hide; a booked patient not yet arrived: check in too', () => {
    expect(keys(walkIn)).toEqual(['terminate', 'hide']);
    expect(keys(booked)).toEqual(['checkin', 'terminate', 'hide']);
    expect(keys({ ...booked, arrivedAt: '2026-03-14T02:00:00.000Z' })).toEqual(['terminate', 'hide']);
    expect(keys({ ...booked, examState: 2 })).toEqual(['terminate', 'hide']);
  });

  test('terminated: only cancel termination (and hide); examined: terminate', () => {
    expect(keys({ ...walkIn, examState: 3 })).toEqual(['restore', 'hide']);
    expect(keys({ ...booked, examState: 3 })).toEqual(['restore', 'hide']);
    expect(keys({ ...walkIn, examState: 2 })).toEqual(['terminate', 'hide']);
  });

  test('each action needs its own right of registration', () => {
    expect(keys(booked, { registration: ['view', 'checkin'] })).toEqual(['checkin']);
    expect(keys({ ...walkIn, examState: 3 }, { registration: ['view', 'hide'] })).toEqual(['hide']);
    expect(keys(booked, { registration: ['view'] })).toEqual([]);
  });

  test('the paths of its own (registration) calls: POST {base}/<action>/{id}', () => {
    expect(exam.rowActions!.filter((a) => a.call && !a.permission.includes(':')).map((a) => `${a.call!.method} ${a.call!.path}`)).toEqual([
      'POST /api/ris/v1/exam/checkin/{id}',
      'POST /api/ris/v1/exam/terminate/{id}',
      'POST /api/ris/v1/exam/restore/{id}',
      'POST /api/ris/v1/exam/hide/{id}',
    ]);
    expect(exam.rowActions!.filter((a) => a.confirm).map((a) => a.key)).toEqual(['terminate', 'restore', 'hide']);
  });
});

describe('the action column: links and "more"', () => {
  const exam = views.exam;
  const menu = exam.list.actionMenu;
  /** Every right the exam list's actions ask for. */
  const everything = {
    registration: ['view', 'add', 'modifyExam', 'deleteExam', 'terminate', 'checkin', 'hide', 'history', 'operationRecord'],
    image: ['view', 'compare', 'manualLink', 'autoLink', 'upload'],
    report: ['print'],
  };
  /** The column's keys for a row, as the table puts them: detail, edit, the row actions, delete. */
  const columnKeys = (row: Record<string, unknown>) => ['detail', 'edit', ...visibleRowActions(exam, served(row, everything), everything).map((a) => a.key), 'delete'];
  const split = (row: Record<string, unknown>) => splitRowActions(columnKeys(row), menu);
  const registered = { id: 2, examState: 1, appointment: true, arrivedAt: null, hidden: false, imageStatus: 0, reportState: -1, patientId: 'P1', hospitalId: 1 };
  const done = { ...registered, examState: 2, arrivedAt: '2026-03-14T02:00:00.000Z', imageStatus: 1, reportState: 4 };

  test('all links while they fit; past that the primary order picks them and the rest keep the column order', () => {
    expect(splitRowActions(['detail', 'edit', 'delete'], undefined)).toEqual({ inline: ['detail', 'edit', 'delete'], more: [] });
    expect(splitRowActions(['detail', 'edit', 'unlock', 'delete'], undefined).more).toEqual([]);
    expect(DEFAULT_INLINE_ACTIONS).toBe(4);
    expect(splitRowActions(['a', 'b', 'c', 'd', 'e'], undefined)).toEqual({ inline: ['a', 'b', 'c', 'd'], more: ['e'] });
    expect(splitRowActions(['a', 'b', 'c', 'd'], { inline: 2, primary: ['d', 'x', 'b'] })).toEqual({ inline: ['d', 'b'], more: ['a', 'c'] });
    // Keys the primary list does not name come after those it names, in the column's order.
    expect(splitRowActions(['a', 'b', 'c', 'd'], { inline: 3, primary: ['c'] })).toEqual({ inline: ['c', 'a', 'b'], more: ['d'] });
  });

  test("the exam list's links follow the row's state", () => {
    expect(split(registered).inline).toEqual(['checkin', 'edit', 'autoMatch']);
    expect(split({ ...registered, examState: 3 }).inline).toEqual(['restore', 'edit', 'detail']);
    expect(split(done).inline).toEqual(['viewImages', 'printReport', 'edit']);
    expect(split({ ...done, reportState: 2 }).inline).toEqual(['viewImages', 'edit', 'images']);
    // Nothing is lost: the rest is under "more", in the column's order, delete last.
    const { inline, more } = split(done);
    expect([...inline, ...more].sort()).toEqual(columnKeys(done).sort());
    expect(more[0]).toBe('detail');
    expect(more.at(-1)).toBe('delete');
  });

  test('every primary key is an action the view can show', () => {
    for (const view of Object.values(views)) {
      const known = ['detail', 'edit', 'delete', ...(view.rowActions ?? []).map((a) => a.key)];
      expect((view.list.actionMenu?.primary ?? []).filter((k) => !known.includes(k))).toEqual([]);
    }
  });

  test('the column is as wide as the links a row can show and "more"', () => {
    expect(actionColumnWidth(3, undefined)).toBe(actionColumnWidth(3, { inline: 3 }));
    expect(actionColumnWidth(4, { inline: 3 })).toBeGreaterThan(actionColumnWidth(3, { inline: 3 }));
    expect(actionColumnWidth(16, menu)).toBe(actionColumnWidth(4, menu));
    // The exam list had 13 row actions and detail, edit and delete: 690 px before.
    expect(actionColumnWidth(16, menu)).toBeLessThanOrEqual(280);
  });
});

describe('row actions that open a screen', () => {
  const exam = views.exam;
  const history = exam.rowActions!.find((a) => a.key === 'history')!;
  const row = { id: 7, examState: 1, appointment: false, hidden: false, patientId: 'P 2026/01' };

  test("the exam list's history opens the patient's history, with the right registration:history", () => {
    expect(history).toEqual({ key: 'history', permission: 'history', open: { path: '/history?patientId={patientId}' } });
    expect(rowActionTarget(history, row)).toBe('/history?patientId=P%202026%2F01');
    expect(visibleRowActions(exam, row, { registration: ['view', 'history'] }).map((a) => a.key)).toEqual(['history']);
    expect(visibleRowActions(exam, row, { registration: ['view'] })).toEqual([]);
    expect(rowActionAllowed(exam, history, { registration: ['history'] })).toBe(true);
  });

  test('a row without the value the path needs offers no history', () => {
    expect(rowActionApplies(history, { id: 7 })).toBe(false);
    expect(rowActionTarget(history, { id: 7, patientId: '' })).toBeUndefined();
  });

  test('a call has no screen; an open action makes no call', async () => {
    expect(rowActionTarget(unlock, locked)).toBeUndefined();
    const req = (async () => null) as RequestFn;
    await expect(runRowAction(history, row, req)).rejects.toThrow('opens a screen');
  });
});

describe('row actions that show a list', () => {
  const exam = views.exam;
  const record = exam.rowActions!.find((a) => a.key === 'operationRecord')!;
  const row = { id: 7, examState: 3, appointment: false, hidden: false, patientId: 'P1' };

  test("the exam list's operation record: POSTs the row's id as a number, with the right registration:operationRecord", async () => {
    expect(record.list?.call).toEqual({ method: 'POST', path: '/api/ris/v1/exam/logs', body: { examId: '{id}' } });
    expect(rowListBody(record, row)).toEqual({ examId: 7 });
    expect(visibleRowActions(exam, row, { registration: ['view', 'operationRecord'] }).map((a) => a.key)).toEqual(['operationRecord']);
    expect(visibleRowActions(exam, row, { registration: ['view', 'history'] }).map((a) => a.key)).toEqual(['history']);
    const calls: Array<[string, RequestOptions | undefined]> = [];
    const req = (async (path: string, options?: RequestOptions) => {
      calls.push([path, options]);
      return { list: [{ id: 1, action: 'registerExam' }] };
    }) as RequestFn;
    expect(await loadRowList(record, row, req)).toEqual([{ id: 1, action: 'registerExam' }]);
    expect(calls).toEqual([['/api/ris/v1/exam/logs', { method: 'POST', body: { examId: 7 } }]]);
    // A list makes no call of its own and opens no screen.
    expect(rowActionTarget(record, row)).toBeUndefined();
    await expect(runRowAction(record, row, req)).rejects.toThrow('shows a list');
  });

  test('a row without the value the body needs offers no list; a literal body value stays as written', () => {
    expect(rowActionApplies(record, { examState: 1 })).toBe(false);
    expect(rowListBody(record, { id: '' })).toBeUndefined();
    const literal: RowAction = { key: 'x', permission: 'view', list: { call: { method: 'GET', path: '/api/x/{code}', body: { kind: 'exam', id: '{id}' } }, entity: 'examLog', columns: ['action'] } };
    expect(rowListBody(literal, { id: 3, code: 'a' })).toEqual({ kind: 'exam', id: 3 });
  });

  test('the columns: date-time formatted, action and changed fields as their texts, detail as label: value lines', () => {
    const cols = rowListColumns(record.list!, (key, params) => (params ? `${params.label as string}: ${params.value as string}` : key));
    expect(cols.map((c) => [c.key, c.title])).toEqual([
      ['createdAt', 'entity.examLog.field.createdAt'],
      ['action', 'entity.examLog.field.action'],
      ['userName', 'entity.examLog.field.userName'],
      ['detail', 'entity.examLog.field.detail'],
    ]);
    const entry = {
      createdAt: new Date(2026, 2, 14, 9, 5, 7).toISOString(),
      action: 'updateExam',
      userName: '登记员小周',
      detail: { changed: ['clinicalDiagnosis', 'price'], fromState: 3, items: ['胸部正位片', '头颅CT平扫'], patientId: '' },
    };
    const [time, action, user, detail] = cols.map((c) => c.lines(entry));
    expect(time).toEqual(['2026-03-14 09:05:07']);
    expect(action).toEqual(['entity.exam.logAction.updateExam']);
    expect(user).toEqual(['登记员小周']);
    // In the schema's order; an empty value is left out.
    expect(detail).toEqual([
      'entity.examLog.field.detail.items: 胸部正位片、头颅CT平扫',
      'entity.examLog.field.detail.changed: entity.exam.field.clinicalDiagnosis、entity.exam.field.price',
      'entity.examLog.field.detail.fromState: code.examState.3',
    ]);
    expect(cols[3].lines({ detail: {} })).toEqual([]);
    expect(cols[2].lines({ userName: null })).toEqual([]);
  });

  test('every text the exam operation record asks for exists in zh-CN, en-US and ru-RU', () => {
    const asked = new Set<string>();
    const cols = rowListColumns(record.list!, (key) => {
      asked.add(key);
      return key;
    });
    const actions = ['registerExam', 'appointExam', 'updateExam', 'modifyBooking', 'cancelBooking', 'checkIn', 'suspend', 'cancelSuspend', 'hideExam', 'deleteExam'];
    for (const action of actions) {
      cols.forEach((c) =>
        c.lines({ createdAt: '2026-03-14T01:00:00Z', action, userName: 'x', detail: { patientId: 'P', items: ['a'], changed: ['price'], fromState: 1, from: '2026-03-14T01:00:00Z', to: '2026-03-14T02:00:00Z' } }),
      );
    }
    asked.add(rowActionTextKey(exam, record));
    for (const lang of ['zh-CN', 'en-US', 'ru-RU']) expect([...asked].filter((k) => resources[lang][k] === undefined)).toEqual([]);
  });
});

describe("a view's action names", () => {
  test('the exam list: edit with registration:modifyExam, delete with registration:deleteExam', () => {
    expect(actionRight(views.exam, 'edit')).toBe('modifyExam');
    expect(actionRight(views.exam, 'delete')).toBe('deleteExam');
    expect(actionRight(views.exam, 'add')).toBe('add');
    expect(viewRights(views.exam, { registration: ['view', 'add', 'modifyExam'] })).toEqual({ view: true, add: true, edit: true, remove: false });
    // The generic names mean nothing in a module that names them otherwise.
    expect(viewRights(views.exam, { registration: ['view', 'edit', 'delete'] })).toEqual({ view: true, add: false, edit: false, remove: false });
    expect(viewRights(views.exam, { registration: ['view', 'deleteExam'] })).toMatchObject({ edit: false, remove: true });
  });

  test('other views keep view/add/edit/delete of their module', () => {
    for (const view of Object.values(views).filter((v) => !v.actions && v.form)) {
      const all = { [view.permission]: ['view', 'add', 'edit', 'delete'] };
      expect(viewRights(view, all)).toEqual({ view: true, add: true, edit: true, remove: true });
      expect(viewRights(view, { [view.permission]: ['view'] })).toEqual({ view: true, add: false, edit: false, remove: false });
    }
    expect(viewRights(views.user, null)).toEqual({ view: false, add: false, edit: false, remove: false });
  });

  test('the server’s read-only answers take away what the rights would offer: the whole list, or one row', () => {
    const all = viewRights(views.role, { 'system.role': ['view', 'add', 'edit', 'delete'] });
    expect(ownedRights(all, false, { id: 1 })).toEqual(all);
    expect(ownedRights(all, false, { id: 1, readOnly: true })).toEqual({ view: true, add: true, edit: false, remove: false });
    expect(ownedRights(all, true)).toEqual({ view: true, add: false, edit: false, remove: false });
    const viewOnly = viewRights(views.role, { 'system.role': ['view'] });
    expect(ownedRights(viewOnly, false, { id: 1, readOnly: false })).toEqual(viewOnly);
  });

  test('a row failing the view’s removeWhen offers no delete, and still its edit (a user the caller does not govern wholly)', () => {
    const all = viewRights(views.user, admin);
    const { removeWhen } = views.user.list;
    expect(ownedRights(all, false, { id: 7, governed: true }, removeWhen)).toEqual(all);
    expect(ownedRights(all, false, { id: 7, governed: false }, removeWhen)).toEqual({ ...all, remove: false });
    expect(ownedRights(all, false, { id: 7 }, removeWhen).remove).toBe(false);
    expect(ownedRights(all, false, { id: 7 })).toEqual(all);
  });
});

describe('picture checks', () => {
  // The form takes its limits from the file service's policy for the view's purpose.
  const policy = policyOf(String(user.fields!.signature.props!.purpose));
  const limits: ImageLimits = { types: policy.types, maxBytes: policy.maxBytes, width: policy.pixels!.width, height: policy.pixels!.height };
  const png = { type: 'image/png', bytes: 20_000, width: 200, height: 130 };

  test("the user view's signature limits are the server's signature policy: JPG or PNG, 1 MB, 200x130", () => {
    expect(isImageLimits(limits)).toBe(true);
    expect(limits).toMatchObject({ types: ['image/jpeg', 'image/png'], maxBytes: 1024 * 1024, width: 200, height: 130 });
    expect(typeNames(limits.types)).toBe('JPG / PNG');
    expect(typeNames(['image/jpeg', 'image/png', 'application/pdf', 'application/dicom'])).toBe('JPG / PNG / PDF / DICOM');
    expect(sizeText(limits.maxBytes)).toBe('1 MB');
    expect(sizeText(200 * 1024)).toBe('200 KB');
    expect(isImageLimits({ types: [], maxBytes: 1, width: 1, height: 1 })).toBe(false);
    expect(isImageLimits({ types: ['image/png'], maxBytes: 1, width: 0, height: 1 })).toBe(false);
  });

  test('type first, then file size, then exact pixels', () => {
    expect(imageProblem(png, limits)).toBeUndefined();
    expect(imageProblem({ ...png, type: 'image/jpeg' }, limits)).toBeUndefined();
    expect(imageProblem({ ...png, type: 'image/gif', bytes: 5_000_000, width: 1 }, limits)).toEqual({ key: 'badType' });
    expect(imageProblem({ ...png, bytes: 1024 * 1024 + 1, width: 1 }, limits)).toEqual({ key: 'tooLarge' });
    expect(imageProblem({ ...png, bytes: 1024 * 1024 }, limits)).toBeUndefined();
    expect(imageProblem({ ...png, width: 201 }, limits)).toEqual({ key: 'badSize', actualWidth: 201, actualHeight: 130 });
    expect(imageProblem({ ...png, height: 129 }, limits)).toEqual({ key: 'badSize', actualWidth: 200, actualHeight: 129 });
    // Before decoding only type and size are judged.
    expect(imageProblem({ type: 'image/png', bytes: 10 }, limits)).toBeUndefined();
  });

  test("the expert view's avatar: the server's policy, JPG or PNG under 5 MB of any size", () => {
    const p = policyOf('expertAvatar');
    const avatar: ImageLimits = { types: p.types, maxBytes: p.maxBytes, width: p.pixels?.width, height: p.pixels?.height };
    expect(isImageLimits(avatar)).toBe(true);
    expect(avatar).toEqual({ types: ['image/jpeg', 'image/png'], maxBytes: 5 * 1024 * 1024, width: undefined, height: undefined });
    expect(imageProblem({ type: 'image/png', bytes: 5 * 1024 * 1024, width: 1234, height: 77 }, avatar)).toBeUndefined();
    expect(imageProblem({ type: 'image/png', bytes: 5 * 1024 * 1024 + 1 }, avatar)).toEqual({ key: 'tooLarge' });
    expect(imageProblem({ type: 'image/gif', bytes: 10 }, avatar)).toEqual({ key: 'badType' });
    // Exact pixels are both or neither.
    expect(isImageLimits({ types: ['image/png'], maxBytes: 1, width: 10 })).toBe(false);
    expect(resources['zh-CN']['entity.upload.hintAnySize']).toBeDefined();
  });

  test.each(['zh-CN', 'en-US', 'ru-RU'])('every problem has its text in %s', (lang) => {
    const keys: Array<ImageProblem['key']> = ['badType', 'tooLarge', 'badSize'];
    expect(keys.map((k) => `entity.upload.${k}`).filter((k) => resources[lang][k] === undefined)).toEqual([]);
  });
});
