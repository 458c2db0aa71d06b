/**
 * The generic workflow engine (server/workflow/engine.ts) on a tiny declared table
 * (a door: closed → open → closed, locked aside) with a fake adapter over an in-memory
 * row — no database:
 * - a transition moves the state, bumps the version and writes the declared log type
 * - a state the action does not start from is refused with the table's code (or the
 *   action's stateErrors code for that state)
 * - no right: UAA103; a refusing guard: its code, nothing written; a stale version: the
 *   table's versionConflict; a missing or too long reason: UAA421
 * - idempotency: the same key answers as done once applied; an idempotent action found
 *   in its target state answers as done; "previous" leads back to the kept state
 * - allowedActions: state, right and row guards (not input guards) decide
 * - the table checker refuses a table whose log type or state is not in its code tables
 * - every view row action's `workflow` names an action of a declared table
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../server/identity/sessions';
import { AppError } from '../../server/lib/errors';
import { allowedActions, perform, type Adapter, type EngineContext, type Guard } from '../../server/workflow/engine';
import { checkTable, type Workflow } from '../../server/workflow/table';
import type { Db } from '../../server/db';

interface Door {
  id: number;
  state: number;
  version: number;
  before: number | null;
  jammed: boolean;
}

const TABLE = {
  name: 'door',
  wrongState: 'RIS102',
  versionConflict: 'REPORT103',
  states: [
    { value: 1, name: 'closed' },
    { value: 2, name: 'open' },
    { value: 3, name: 'locked' },
  ],
  actions: {
    open: { description: 'Open it.', transitions: [{ from: [1], to: 2 }], permission: ['report:write'], guards: ['notJammed'], log: 'open', stateErrors: { '3': 'REPORT009' } },
    close: { description: 'Close it.', transitions: [{ from: [2], to: 1 }], permission: ['report:write'], idempotent: true, log: 'close' },
    lock: { description: 'Lock it, with a reason.', transitions: [{ from: [1, 2], to: 3 }], permission: ['report:unlock'], reason: 'text200', effects: ['keep'], versioned: false, log: 'lock' },
    unlock: { description: 'Back as it was.', transitions: [{ from: [3], to: 'previous' }], permission: ['report:unlock'], guards: ['confirmed'], versioned: false, log: null },
  },
};

type Ctx = EngineContext<Door, { version?: number; reason?: string; confirm?: boolean }>;

function fakeAdapter(door: Door, w: Workflow) {
  const written: Array<{ name: string; from: number; to: number; log: string | null; set: Record<string, unknown> }> = [];
  const keys = new Set<string>();
  const guards: Record<string, Guard<Ctx>> = {
    notJammed: { check: ({ row }) => { if (row.jammed) throw new AppError('REPORT101'); } },
    confirmed: { input: true, check: ({ input }) => { if (!input.confirm) throw new AppError('REPORT011'); } },
  };
  const adapter: Adapter<Door, Ctx['input'], Ctx> = {
    workflow: w,
    guards,
    effects: { keep: (ctx) => void (ctx.set.before = ctx.row.state) },
    lockRow: async (_q, id) => {
      if (id !== door.id) throw new AppError('RIS101');
      return { ...door };
    },
    state: (row) => row.state,
    version: (row) => row.version,
    previousState: (row) => row.before ?? 1,
    recordRequest: async (_q, me, _id, name, key) => !keys.has(`${me.userId}/${key}`) && Boolean(keys.add(`${me.userId}/${key}`)) && name.length > 0,
    context: (base) => base,
    async write(_q, ctx, change) {
      written.push({ name: change.name, from: change.from, to: change.to, log: change.log?.type ?? null, set: { ...ctx.set } });
      door.state = change.to;
      if (change.versioned) door.version += 1;
      if ('before' in ctx.set) door.before = ctx.set.before as number;
    },
  };
  return { adapter, written };
}

// The engine only asks the database for a transaction; the fake adapter never queries.
const db = { tx: (work: (q: unknown) => unknown) => work({}) } as unknown as Db;
const me = (rights: Record<string, string[]>) => ({ userId: 1, name: '甲', hospitalId: 1, permissions: rights }) as unknown as AuthContext;
const writer = me({ report: ['write'] });
const keeper = me({ report: ['write', 'unlock'] });

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
  throw new Error('not refused');
}

describe('workflow engine on a declared table', () => {
  const w = checkTable(TABLE, 'door.json', { guards: { notJammed: 1, confirmed: 1 }, effects: { keep: 1 } });
  const fresh = () => fakeAdapter({ id: 1, state: 1, version: 0, before: null, jammed: false }, w);

  test('a transition moves the state, bumps the version, writes the declared log type', async () => {
    const { adapter, written } = fresh();
    expect(await perform(db, adapter, writer, 1, 'open', { version: 0 })).toEqual({ replayed: false });
    expect(written).toEqual([{ name: 'open', from: 1, to: 2, log: 'open', set: {} }]);
    expect(await perform(db, adapter, writer, 1, 'close', { version: 1 })).toEqual({ replayed: false });
    expect(written.map((x) => [x.from, x.to, x.log])).toEqual([[1, 2, 'open'], [2, 1, 'close']]);
  });

  test("a wrong state is refused with the table's code, or the action's own for that state; nothing written", async () => {
    const { adapter, written } = fresh();
    expect(await refusal(perform(db, adapter, keeper, 1, 'unlock', { confirm: true }))).toBe('RIS102');
    await perform(db, adapter, keeper, 1, 'lock', { reason: '夜间' });
    expect(await refusal(perform(db, adapter, keeper, 1, 'open', { version: 0 }))).toBe('REPORT009');
    expect(written.map((x) => x.name)).toEqual(['lock']);
  });

  test('permission, guard, version and reason refusals; nothing written', async () => {
    const door = { id: 1, state: 1, version: 4, before: null, jammed: true };
    const { adapter, written } = fakeAdapter(door, w);
    expect(await refusal(perform(db, adapter, writer, 1, 'lock', { reason: 'x' }))).toBe('UAA103');
    expect(await refusal(perform(db, adapter, writer, 1, 'open', { version: 4 }))).toBe('REPORT101');
    door.jammed = false;
    expect(await refusal(perform(db, adapter, writer, 1, 'open', { version: 3 }))).toBe('REPORT103');
    expect(await refusal(perform(db, adapter, writer, 1, 'open', {}))).toBe('UAA421');
    expect(await refusal(perform(db, adapter, keeper, 1, 'lock', {}))).toBe('UAA421');
    expect(await refusal(perform(db, adapter, keeper, 1, 'lock', { reason: 'x'.repeat(201) }))).toBe('UAA421');
    expect(await refusal(perform(db, adapter, writer, 1, 'fly', {}))).toBe('UAA421');
    expect(await refusal(perform(db, adapter, writer, 2, 'open', { version: 4 }))).toBe('RIS101');
    expect(written).toEqual([]);
  });

  test('idempotent repeats: the same key once; an idempotent action already in its target state; back to the previous state', async () => {
    const { adapter, written } = fresh();
    expect(await perform(db, adapter, writer, 1, 'open', { version: 0 }, 'k1')).toEqual({ replayed: false });
    expect(await perform(db, adapter, writer, 1, 'open', { version: 0 }, 'k1')).toEqual({ replayed: true });
    await perform(db, adapter, writer, 1, 'close', { version: 1 });
    // Closing a closed door answers as done; opening an open one is refused (not idempotent).
    expect(await perform(db, adapter, writer, 1, 'close', { version: 2 })).toEqual({ replayed: true });
    expect(written.map((x) => x.name)).toEqual(['open', 'close']);
    await perform(db, adapter, writer, 1, 'open', { version: 2 });
    await perform(db, adapter, keeper, 1, 'lock', { reason: '检修' });
    expect(await refusal(perform(db, adapter, keeper, 1, 'unlock', {}))).toBe('REPORT011');
    await perform(db, adapter, keeper, 1, 'unlock', { confirm: true });
    expect(written.at(-1)).toMatchObject({ name: 'unlock', from: 3, to: 2, log: null });
  });

  test('allowed actions: the state, the right and the row guards decide; input guards wait for the call', () => {
    const { adapter } = fresh();
    const door = (patch: Partial<Door>): Door => ({ id: 1, state: 1, version: 0, before: null, jammed: false, ...patch });
    expect(allowedActions(adapter, door({}), writer)).toEqual(['open']);
    expect(allowedActions(adapter, door({}), keeper)).toEqual(['open', 'lock']);
    expect(allowedActions(adapter, door({ jammed: true }), keeper)).toEqual(['lock']);
    expect(allowedActions(adapter, door({ state: 3 }), keeper)).toEqual(['unlock']);
    expect(allowedActions(adapter, door({ state: 3 }), writer)).toEqual([]);
  });

  test('the checker refuses states and log types outside the code tables the table names', () => {
    const rules = { guards: { notJammed: 1, confirmed: 1 }, effects: { keep: 1 } };
    const coded = { ...TABLE, stateCodes: 'codes/examState.json', logCodes: 'codes/reportOperationType.json' };
    expect(() => checkTable(coded, 'door.json', rules)).toThrow(/log type open is not a code of codes\/reportOperationType.json/);
    const states = { ...TABLE, stateCodes: 'codes/printState.json' };
    expect(() => checkTable(states, 'door.json', rules)).toThrow(/state 3 is not a code of codes\/printState.json/);
    expect(() => checkTable({ ...TABLE, versionConflict: undefined }, 'door.json', rules)).toThrow(/names no versionConflict/);
    expect(() => checkTable(TABLE, 'door.json', { ...rules, guards: {} })).toThrow(/no guard named notJammed/);
  });
});

describe('views and workflow tables', () => {
  const root = path.join(__dirname, '../..');
  const tables = fs.readdirSync(path.join(root, 'config/workflows')).map((f) => JSON.parse(fs.readFileSync(path.join(root, 'config/workflows', f), 'utf8')) as Workflow);
  const declared = new Set(tables.flatMap((t) => Object.keys(t.actions)));

  test("every view row action's workflow is a declared action; no view restates a workflow's state field", () => {
    const stateFields = ['reportState', 'examState'];
    for (const file of fs.readdirSync(path.join(root, 'schemas/views')).filter((f) => !f.startsWith('_'))) {
      const view = JSON.parse(fs.readFileSync(path.join(root, 'schemas/views', file), 'utf8')) as { rowActions?: Array<{ key: string; workflow?: string; visibleWhen?: unknown }> };
      for (const a of view.rowActions ?? []) {
        if (a.workflow) expect(`${file} ${a.key} ${declared.has(a.workflow)}`).toBe(`${file} ${a.key} true`);
        if (a.workflow) for (const f of stateFields) expect(JSON.stringify(a.visibleWhen ?? null)).not.toContain(`"${f}"`);
      }
    }
    expect(declared.has('checkin') && declared.has('reviewReject')).toBe(true);
  });
});
