/**
 * The generic list extensions the report centre and the templates use, as pure
 * functions and as view data. Scenarios:
 * - list kinds: tabs for the kinds whose right (or one of whose rights) the user holds,
 *   the kind asked for when offered else the first; a view without kinds has none; the
 *   list call goes to {base}/list/<kind>
 * - {$kind} in a row action's path is the kind shown: the report lists open
 *   /reportDetail?id=<id>&from=<kind>&model=report
 * - report rows offer write / review / recheck / view as the actions the server's workflow
 *   engine allows on the row (state, rights, guards) and the rights; reject,
 *   assign, recall (a printed one asks first and confirms), withdraw (only once sent to
 *   the superior) with the row's version in the body and what the dialog asked for
 * - the remote centre's rows carry the fields its view reads (viewRowFields), the own lists
 *   theirs; judging a listed row reads nothing its page key leaves out but id and exam code
 * - input: a reason's limits are the workflow table's for the action (200 for a reject or
 *   a withdraw, 3000 for a recall); an action without a reason there throws; choices
 *   come from the call's data.list as value/label
 * - toolbar: a call on the ticked rows sends "{selected.id}" as the ids; nothing without
 *   rows; the success text gets the answer's counts
 * - filter tree: nodes down to the view's levels under an "all" root; a node filters its
 *   level and the levels above; the root filters nothing; a rename sends the call's
 *   query, the node's filters and the new name
 * - a view without a form offers no detail, create or edit (delete stays the right's)
 * - every view: kinds name rights of its module; tree levels are fields of its query bar
 * - the view schema takes kinds, tree, input, toolbar calls and formless views, and
 *   refuses a toolbar action with both or neither of dialog and call, a choice by POST, a
 *   formless view with a form route
 * - texts: kinds, an input's Reason / Choose, a toolbar call's Confirm / Done, the tree's
 *   root, in zh-CN, en-US and ru-RU
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import fs from 'node:fs';
import path from 'node:path';
import { customFormats } from '../../config/formats';
import { PERMISSION_MODULES } from '../../config/declared';
import { resources } from '../../locales';
import { loadChoices, reasonLimits, reasonProblem } from '@/schema/inputs';
import { entityModel } from '@/shared/schema/model';
import { chosenKind, kindTextKey, visibleKinds } from '@/schema/listKinds';
import { fillPath } from '@/shared/schema/pathTemplate';
import { viewRights } from '@/schema/permissions';
import { resourceApi } from '@/schema/resource';
import { answerCounts, rowActionTarget, rowActionTextKey, runRowAction, runToolbarCall, selectionBody, visibleRowActions } from '@/schema/rowActions';
import { filterTreeData, nodeNames, renameBody, treeFilters } from '@/schema/treeFilters';
import type { View } from '@/shared/schema/types';
import { viewRowFields, views } from '@/shared/schema/views';
import { recorder } from '../support/requestRecorder';
import { guardKey, listSpec, packGuard, pageActions } from '../../server/report/read';
import { allowedActions, type ReportRow } from '../../server/report/engine';
import type { AuthContext } from '../../server/identity/sessions';

const report = views.report;
const radiologist = { report: ['view', 'write', 'print', 'withdraw', 'operationRecord'], myReport: ['view', 'write'] };
const senior = { report: ['view', 'write', 'verify', 'recheck', 'print', 'batchPrint', 'unlock', 'recall', 'assign', 'operationRecord'] };

describe('list kinds', () => {
  test('a tab per kind the user may see, in the view order; one of several rights is enough', () => {
    expect(visibleKinds(report, radiologist).map((k) => k.key)).toEqual(['write', 'print', 'all']);
    expect(visibleKinds(report, senior).map((k) => k.key)).toEqual(['write', 'review', 'print', 'all']);
    expect(visibleKinds(report, { report: ['recheck'] }).map((k) => k.key)).toEqual(['review']);
    expect(visibleKinds(report, null)).toEqual([]);
  });

  test('the kind asked for when offered, else the first offered; none without kinds', () => {
    expect(chosenKind(report, senior, 'print')).toBe('print');
    expect(chosenKind(report, radiologist, 'review')).toBe('write');
    expect(chosenKind(report, radiologist, null)).toBe('write');
    expect(chosenKind(views.myReport, radiologist, undefined)).toBe('mine');
    expect(chosenKind(views.exam, { registration: ['view'] }, 'write')).toBeUndefined();
    expect(chosenKind(report, {}, 'write')).toBeUndefined();
    expect(kindTextKey(report, 'write')).toBe('entity.reportRow.kind.write');
  });

  test('the list call of a kind is POST {base}/list/<kind>', async () => {
    const { calls, req } = recorder({ list: [], total: 0 });
    const query = { page: 1, pageSize: 20, filters: {} };
    await resourceApi('report', req).list(query, undefined, 'write');
    await resourceApi('exam', req).list(query);
    expect(calls.map(([p, o]) => [p, o?.method])).toEqual([
      ['/api/report/v1/report/list/write', 'POST'],
      ['/api/ris/v1/exam/list', 'POST'],
    ]);
  });
});

describe('report rows', () => {
  /** The row as the server lists it for a user of hospital 1 with these rights: with the workflow actions its engine allows. */
  const served = (r: Record<string, unknown>, map: Record<string, string[]>) => {
    const me = { userId: 9, name: '医生', hospitalId: 1, permissions: map } as unknown as AuthContext;
    const { sentToSuperior, ...shown } = r;
    const listed = { examCode: 'E1', ...shown, _guard: packGuard({ hospitalId: 1, examState: 2, sentToSuperior: sentToSuperior === true, printNumber: 0 }) };
    return { ...r, actions: [...pageActions(me)(listed)] };
  };
  const keys = (row: Record<string, unknown>, map: Record<string, string[]>) => visibleRowActions(report, served(row, map), map, { kind: 'write' }).map((a) => a.key);
  const row = (patch: Record<string, unknown>) => ({ id: 7, version: 3, reportState: -1, reportPrintState: 0, sentToSuperior: false, ...patch });

  test('{$kind} is the kind shown; without it the path has no value', () => {
    expect(fillPath('/reportDetail?id={id}&from={$kind}&model=report', { id: 7 }, { kind: 'review' })).toBe('/reportDetail?id=7&from=review&model=report');
    expect(fillPath('/reportDetail?id={id}&from={$kind}', { id: 7, kind: 'x' })).toBeUndefined();
    const write = report.rowActions!.find((a) => a.key === 'write')!;
    expect(rowActionTarget(write, row({}), { kind: 'write' })).toBe('/reportDetail?id=7&from=write&model=report');
    // A screen that shows no kind offers no link that names one.
    expect(visibleRowActions(report, row({}), radiologist).map((a) => a.key)).toEqual(['operationRecord']);
  });

  test('open as state and rights allow: write, review, recheck, always view', () => {
    expect(keys(row({}), radiologist)).toEqual(['write', 'view', 'operationRecord']);
    expect(keys(row({ reportState: 2 }), radiologist)).toEqual(['view', 'operationRecord']);
    expect(keys(row({ reportState: 2 }), senior)).toEqual(['review', 'view', 'operationRecord', 'assign', 'reject']);
    expect(keys(row({ reportState: 5 }), senior)).toEqual(['recheck', 'view', 'operationRecord', 'assign']);
    // Sent to the superior hospital: the superior works on it; the sender may withdraw it.
    expect(keys(row({ reportState: 2, sentToSuperior: true }), { report: [...radiologist.report, 'verify'] })).toEqual(['view', 'operationRecord', 'withdraw']);
  });

  test("a page's rows alike but for their identity share their actions; a row another doctor has open does not", () => {
    const me = { userId: 9, name: '医生', hospitalId: 1, permissions: senior } as unknown as AuthContext;
    const actions = pageActions(me);
    // The row as listed: its fields, the guards' other inputs packed (read.ts GUARD_INPUTS).
    const listed = (patch: Record<string, unknown>, guard: Record<string, number | boolean | null> = {}) => ({
      version: 1, reportState: 1, ...patch,
      _guard: packGuard({ hospitalId: 1, examState: 2, sentToSuperior: false, printNumber: 0, see: true, ...guard }),
    });
    const free = actions(listed({ id: 1, examCode: 'E1' }));
    expect(free).toContain('lock');
    expect(actions(listed({ id: 2, examCode: 'E2' }))).toBe(free);
    const held = actions(listed({ id: 3, examCode: 'E3', lockedByName: '林医生' }, { lockLive: true, lockHolderId: 10 }));
    expect(held).not.toContain('lock');
    expect(actions(listed({ id: 4, examCode: 'E4', lockedByName: '医生' }, { lockLive: true, lockHolderId: 9 }))).toContain('save');
    // Unwritten: submitting to write upward asks for a report nobody has written in.
    expect(actions(listed({ id: 5, examCode: 'E5', reportState: -1 }, { see: false }))).not.toBe(free);
  });

  test("the remote centre's rows carry what its screen reads: columns, the age's unit, what its row actions send and test", () => {
    const fields = viewRowFields(views.remote);
    expect(fields).toEqual(expect.arrayContaining(['id', ...views.remote.list.columns, 'ageUnit', 'version', 'reportPrintState']));
    // Its actions' other templates ({$kind}) are the screen's, not the row's.
    expect(fields).not.toContain('$kind');
    const me = { userId: 9, roleId: 3, name: '林主任', hospitalId: 2, scope: { all: false, hospitalIds: [1, 2], conditionSets: [] }, permissions: {} } as unknown as AuthContext;
    for (const kind of ['write', 'review', 'done', 'all'] as const) {
      const select = listSpec(kind, 'remote', me).select;
      for (const field of fields) expect(select).toContain(`AS "${field}"`);
      // Not what only the hospital's own lists show.
      expect(select).not.toContain('AS "lastOperatorName"');
    }
    expect(listSpec('all', 'report', me).select).toContain('AS "lastOperatorName"');
  });

  test("judging a listed row reads nothing the page's key for it leaves out but its id and exam code", () => {
    const me = { userId: 9, name: '医生', hospitalId: 2, permissions: { remote: ['view', 'write', 'verify', 'recheck', 'reassign', 'recall'], report: ['view'] } } as unknown as AuthContext;
    const watched = (row: Record<string, unknown>, read: Set<string>) =>
      new Proxy(row, {
        get(target, key, receiver) {
          if (typeof key === 'string') read.add(key);
          return Reflect.get(target, key, receiver);
        },
      });
    for (const reportState of [-1, 1, 2, 3, 4]) {
      const row = { id: 1, examCode: 'E1', version: 2, reportState, reportPrintState: 0, lockedByName: '林医生', claimedByName: '王医生',
        _guard: packGuard({ hospitalId: 1, examState: 2, sentToSuperior: true, superiorHospitalId: 2, see: true, lockLive: true, lockHolderId: 10, claimedBy: 11 }) };
      const judged = new Set<string>();
      const keyed = new Set<string>();
      pageActions(me)(watched(row, judged));
      guardKey(watched(row, keyed));
      expect([...judged].filter((f) => !keyed.has(f)).sort()).toEqual(['examCode', 'id']);
    }
  });

  test('judging a row reads neither its id nor its exam code (what lets pageActions share the judgement)', () => {
    const read = new Set<string>();
    const watched = (report: Record<string, unknown>) =>
      new Proxy(report, {
        get(target, key, receiver) {
          if (typeof key === 'string') read.add(key);
          return Reflect.get(target, key, receiver);
        },
      }) as unknown as ReportRow;
    const doctors = [
      { userId: 9, hospitalId: 1, permissions: senior },
      { userId: 9, hospitalId: 2, permissions: { remote: ['view', 'write', 'verify', 'recheck', 'reassign', 'recall'], report: ['view'] } },
    ] as unknown as AuthContext[];
    for (const me of doctors) {
      for (const report_state of [-1, 1, 2, 3, 4, 5, 6, 7, 8]) {
        for (const sent_to_superior of [false, true]) {
          for (const lock_live of [false, true]) {
            allowedActions(
              watched({
                id: 1, exam_code: 'E1', exam_hospital_id: 1, exam_state: 2, report_state, version: 1, see: 'x', diagnosis: null, sent_to_superior,
                superior_hospital_id: sent_to_superior ? 2 : null, print_state: 0, print_number: 0, return_state: false, lock_live,
                lock_holder_id: lock_live ? 10 : null, lock_holder_name: lock_live ? '林医生' : null, assignees: [], remote_claimed_by: null,
                claimant_name: null, claim_live: false, remote_approved: report_state === 4, remote_recalled: false, exam_business_mode: 2,
              }),
              me,
            );
          }
        }
      }
    }
    expect(read).toContain('report_state');
    expect(read).toContain('exam_hospital_id');
    expect(read).not.toContain('id');
    expect(read).not.toContain('exam_code');
  });

  test('recall: a printed report asks first and sends the confirmation', async () => {
    expect(keys(row({ reportState: 4 }), senior)).toEqual(['view', 'operationRecord', 'recall']);
    expect(keys(row({ reportState: 4, reportPrintState: 1 }), senior)).toEqual(['view', 'operationRecord', 'recallPrinted']);
    const printed = report.rowActions!.find((a) => a.key === 'recallPrinted')!;
    expect(printed.confirm).toBe(true);
    const { calls, req } = recorder();
    await runRowAction(printed, row({ reportState: 4, reportPrintState: 1 }), req, { reason: '补充诊断' });
    expect(calls).toEqual([['/api/report/v1/report/recall/7', { method: 'POST', body: { version: 3, confirm: true, reason: '补充诊断' } }]]);
  });

  test('reject and assign send the row version with what the dialog asked for', async () => {
    const { calls, req } = recorder();
    const reject = report.rowActions!.find((a) => a.key === 'reject')!;
    const assign = report.rowActions!.find((a) => a.key === 'assign')!;
    await runRowAction(reject, row({ reportState: 2, version: 0 }), req, { reason: '诊断不全' });
    await runRowAction(assign, row({ reportState: -1 }), req, { doctorIds: [4, 7] });
    expect(calls).toEqual([
      ['/api/report/v1/report/reviewReject/7', { method: 'POST', body: { version: 0, reason: '诊断不全' } }],
      ['/api/report/v1/report/assign/7', { method: 'POST', body: { version: 3, doctorIds: [4, 7] } }],
    ]);
  });
});

describe('input', () => {
  test("a reason's limits are the workflow table's for the action", () => {
    expect(reasonLimits({ workflow: 'report', action: 'reviewReject' })).toEqual({ minLength: 1, maxLength: 200 });
    expect(reasonLimits({ workflow: 'report', action: 'withdraw' })).toEqual({ minLength: 1, maxLength: 200 });
    expect(reasonLimits({ workflow: 'report', action: 'recall' })).toEqual({ minLength: 1, maxLength: 3000 });
    expect(() => reasonLimits({ workflow: 'report', action: 'save' })).toThrow('declares no reason');
    expect(() => reasonLimits({ workflow: 'nothing', action: 'save' })).toThrow();
  });

  test('a reason is judged trimmed: required, then the limits', () => {
    const limits = { minLength: 2, maxLength: 5 };
    expect(reasonProblem(undefined, limits)).toBe('required');
    expect(reasonProblem('   ', limits)).toBe('required');
    expect(reasonProblem(' a ', limits)).toBe('minLength');
    expect(reasonProblem('abcdef', limits)).toBe('maxLength');
    expect(reasonProblem(' abcde ', limits)).toBeUndefined();
  });

  test("choices are the call's data.list for the row, as value and label", async () => {
    const assign = report.rowActions!.find((a) => a.key === 'assign')!;
    const { calls, req } = recorder({ list: [{ id: 4, name: '陈医生' }] });
    expect(await loadChoices(assign, { id: 9 }, req)).toEqual([{ value: 4, label: '陈医生' }]);
    expect(calls[0][0]).toBe('/api/report/v1/report/assignees/9');
    await expect(loadChoices(report.rowActions![0], { id: 9 }, req)).rejects.toThrow('chooses nothing');
  });
});

describe('toolbar calls on the selection', () => {
  const unlock = report.toolbarActions!.find((a) => a.key === 'batchUnlock')!;

  test('"{selected.id}" is the ticked rows\' ids; nothing without rows or with a row lacking one', () => {
    expect(selectionBody(unlock.call!.body, [{ id: 3 }, { id: 5 }])).toEqual({ ids: [3, 5] });
    expect(selectionBody({ ids: '{selected.id}', keep: 'x' }, [{ id: 3 }])).toEqual({ ids: [3], keep: 'x' });
    expect(selectionBody(unlock.call!.body, [])).toBeUndefined();
    expect(selectionBody(unlock.call!.body, [{ id: 3 }, { name: 'x' }])).toBeUndefined();
  });

  test('the call goes through the request function; its answer gives the success text its counts', async () => {
    const { calls, req } = recorder({ unlocked: [3], refused: [] });
    const answer = await runToolbarCall(unlock, [{ id: 3 }], req);
    expect(calls).toEqual([['/api/report/v1/report/batchUnlock', { method: 'POST', body: { ids: [3] } }]]);
    expect(answerCounts(answer)).toEqual({ unlocked: 1, refused: 0 });
    expect(answerCounts({ updated: 2, note: 'x' })).toEqual({ updated: 2 });
    expect(answerCounts(null)).toEqual({});
    await expect(runToolbarCall(unlock, [], req)).rejects.toThrow('no selected rows');
    const print = report.toolbarActions!.find((a) => a.key === 'batchPrint')!;
    await expect(runToolbarCall(print, [{ id: 3 }], req)).rejects.toThrow('opens a dialog');
  });
});

describe('filter tree', () => {
  const tree = views.templatePrivate.list.tree!;
  const nodes = [
    {
      name: 'CT',
      children: [
        { name: '头颅', children: [{ id: 1, templateName: '正常' }] },
        { name: '胸部', children: [] },
      ],
    },
    { name: 'DR', children: [] },
  ];

  test('nodes down to the levels under the root; templates themselves are left out', () => {
    expect(filterTreeData(tree, nodes, '全部')).toEqual([
      {
        key: '',
        title: '全部',
        children: [
          {
            key: '["CT"]',
            title: 'CT',
            children: [
              { key: '["CT","头颅"]', title: '头颅' },
              { key: '["CT","胸部"]', title: '胸部' },
            ],
          },
          { key: '["DR"]', title: 'DR' },
        ],
      },
    ]);
    expect(filterTreeData(tree, undefined, '全部')).toEqual([{ key: '', title: '全部' }]);
  });

  test('a node filters its level and the ones above; the root or a broken key nothing', () => {
    expect(treeFilters(tree, '["CT","头颅"]')).toEqual({ className1: 'CT', className2: '头颅' });
    expect(treeFilters(tree, '["DR"]')).toEqual({ className1: 'DR' });
    expect(treeFilters(tree, '')).toEqual({});
    expect(treeFilters(tree, '{')).toEqual({});
  });

  test("a rename sends the tree call's query, the node's filters and the new name", () => {
    expect(nodeNames('["CT","头颅"]')).toEqual(['CT', '头颅']);
    expect(nodeNames('[1]')).toEqual([]);
    expect(renameBody(tree, '["CT","头颅"]', '颅脑')).toEqual({ scope: 'private', className1: 'CT', className2: '头颅', name: '颅脑' });
    expect(renameBody(tree, '["CT"]', 'CT平扫')).toEqual({ scope: 'private', className1: 'CT', name: 'CT平扫' });
    expect(tree.rename).toEqual({ path: '/api/report/v1/template/class/rename', permission: 'edit' });
  });
});

describe('views without a form', () => {
  test("no detail, create or edit whatever the rights; delete stays the right's", () => {
    expect(viewRights(report, { report: ['view', 'add', 'edit', 'delete'] })).toEqual({ view: false, add: false, edit: false, remove: true });
    expect(viewRights(views.templatePrivate, { privateTemplate: ['view', 'add', 'edit', 'delete'] })).toEqual({
      view: true,
      add: true,
      edit: true,
      remove: true,
    });
  });
});

describe('the view schema', () => {
  const root = path.resolve(__dirname, '..', '..', 'schemas');
  const ajv = new Ajv({ strict: true, allErrors: true });
  addFormats(ajv);
  customFormats(ajv);
  const walk = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.json') ? [path.join(dir, e.name)] : []));
  for (const f of walk(root).filter((f) => !f.includes(`${path.sep}views${path.sep}`) || f.endsWith('_view.schema.json')))
    ajv.addSchema(JSON.parse(fs.readFileSync(f, 'utf8')));
  const validate = ajv.getSchema('views/_view.schema.json') as (d: unknown) => boolean;
  const unlock = report.toolbarActions![0];

  test('takes kinds, tree, input, toolbar calls and views without a form', () => {
    for (const v of [views.report, views.myReport, views.templatePublic, views.templatePrivate]) expect(validate(v)).toBe(true);
  });

  test('refuses a toolbar action with both or neither of dialog and call, a choice by POST, a formless view with a form route', () => {
    const withToolbar = (patch: object) => validate({ ...report, toolbarActions: [{ ...unlock, ...patch }] });
    expect(withToolbar({})).toBe(true);
    expect(withToolbar({ dialog: { component: 'ReportPrint' } })).toBe(false);
    expect(withToolbar({ call: undefined })).toBe(false);
    expect(withToolbar({ call: { method: 'GET', path: unlock.call!.path } })).toBe(false);
    const assign = report.rowActions!.find((a) => a.key === 'assign')!;
    const choose = assign.input!.choose!;
    expect(validate({ ...report, rowActions: [{ ...assign, input: { choose: { ...choose, call: { ...choose.call, method: 'POST' } } } }] })).toBe(false);
    expect(validate({ ...report, rowActions: [{ ...assign, input: {} }] })).toBe(false);
    expect(validate({ ...report, routes: { list: '/report', form: '/reportForm' } })).toBe(false);
    expect(validate({ ...report, list: { ...report.list, kinds: [{ key: 'write' }] } })).toBe(false);
    expect(
      validate({
        ...views.templatePrivate,
        list: { ...views.templatePrivate.list, tree: { call: { method: 'POST', path: '/api/x' }, levels: ['className1'] } },
      }),
    ).toBe(false);
    const { form: _form, ...formless } = views.templatePrivate;
    expect(validate(formless)).toBe(true);
  });
});

describe('every view', () => {
  const modules = PERMISSION_MODULES;
  const granted = (view: View, p: string) => {
    const at = p.lastIndexOf(':');
    return at < 0 ? (modules[view.permission] ?? []).includes(p) : (modules[p.slice(0, at)] ?? []).includes(p.slice(at + 1));
  };

  test.each(Object.entries(views) as Array<[string, View]>)('%s: kinds name rights of its module, tree levels fields its query bar has', (_name, view) => {
    const kinds = view.list.kinds ?? [];
    expect(new Set(kinds.map((k) => k.key)).size).toBe(kinds.length);
    expect(kinds.flatMap((k) => [k.permission].flat()).filter((p) => !granted(view, p))).toEqual([]);
    if (view.list.tree?.rename) expect(granted(view, view.list.tree.rename.permission)).toBe(true);
    const model = entityModel(view.entity);
    expect((view.list.tree?.levels ?? []).filter((f) => !model.byName.has(f) || !(view.list.query ?? []).includes(f))).toEqual([]);
  });
});

describe('texts', () => {
  const withExtensions = Object.values(views) as View[];
  const keys = [
    'entity.tree.all',
    'entity.tree.rename',
    'entity.tree.name',
    'entity.tree.renameDone',
    ...withExtensions.flatMap((v) => (v.list.kinds ?? []).map((k) => kindTextKey(v, k.key))),
    ...withExtensions.flatMap((v) =>
      (v.rowActions ?? []).flatMap((a) => [
        ...(a.input?.reason ? [rowActionTextKey(v, a, 'Reason')] : []),
        ...(a.input?.choose ? [rowActionTextKey(v, a, 'Choose')] : []),
      ]),
    ),
    ...withExtensions.flatMap((v) =>
      (v.toolbarActions ?? []).flatMap((a) => (a.call ? [rowActionTextKey(v, a, 'Done'), ...(a.confirm ? [rowActionTextKey(v, a, 'Confirm')] : [])] : [])),
    ),
  ];

  test('the list of keys covers the report views', () => {
    expect(keys).toEqual(
      expect.arrayContaining([
        'entity.reportRow.kind.mine',
        'entity.reportRow.action.rejectReason',
        'entity.reportRow.action.assignChoose',
        'entity.reportRow.action.batchUnlockDone',
      ]),
    );
  });

  test.each(['zh-CN', 'en-US', 'ru-RU'])('%s has them', (lang) => {
    // A counted text is there in its plural forms (i18next's key_other at least).
    expect(keys.filter((k) => resources[lang][k] === undefined && resources[lang][`${k}_other`] === undefined)).toEqual([]);
  });
});
