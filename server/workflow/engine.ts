/**
 * The one workflow engine: executes any declared workflow table (./table.ts) on any
 * entity through a small adapter per entity table. `perform` runs an action in one
 * transaction — the row loaded FOR UPDATE within the caller's scope, the request key
 * recorded, the right, the entity-wide gate, the version, the state and the reason
 * checked, the guards and effects of the entity's registry run in the table's order,
 * then the adapter writes the new state, version, lock and the log entry of the
 * declared type. `allowedActions` answers, from the same table, which actions the
 * caller may take on a row now (what list rows and details carry). The engine knows
 * no table and no column: the adapter does.
 */
import type { FastifyError } from 'fastify';
import type { Db, Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { hasPermission } from '../identity/access';
import { AppError, refusalError, type Refusal } from '../lib/errors';
import { schemaCheck } from '../lib/ajv';
import { validationFailure } from '../lib/http';
import { transitionFrom, type Workflow, type WorkflowAction } from './table';
import { clock } from '../lib/clock';

/** What every call may carry; an entity's input adds its own fields. */
export interface BaseInput {
  version?: number;
  reason?: string;
}

/** What guards and effects see while an action runs. Adapters extend it with their own fields. */
export interface EngineContext<Row, Input extends BaseInput = BaseInput> {
  /** Absent while listing allowed actions (no query may run then). */
  q: Queryable;
  me: AuthContext;
  row: Row;
  input: Input;
  name: string;
  action: WorkflowAction;
  now: Date;
  /** Columns the action writes beyond the state (effects, content). */
  set: Record<string, unknown>;
  /** Written after the entity's row (rows of other tables). */
  after: Array<() => Promise<void>>;
  /** Extra detail of the operation-log entry. */
  log: Record<string, unknown>;
}

/**
 * A guard judges the row as read (synchronously: the list of allowed actions runs it
 * without a database), or, flagged `input`, what the call carries (reason, content, a
 * confirmation or a choice; it may query): those are judged only when the action is sent.
 * It refuses by returning a Refusal (free to judge a list's rows with), or by throwing
 * an AppError.
 */
export type Guard<C> = { input?: false; check(ctx: C): Refusal | void } | { input: true; check(ctx: C): Refusal | void | Promise<Refusal | void> };
export type Effect<C> = (ctx: C) => void | Promise<void>;

/** What the adapter writes once the checks passed. */
export interface Change {
  name: string;
  action: WorkflowAction;
  from: number;
  to: number;
  /** The version moves on (a versioned action). */
  versioned: boolean;
  /** The log type of the table (null: none) and its detail. */
  log: { type: string; detail: Record<string, unknown> } | null;
}

/** How the engine reaches one entity table. */
export interface Adapter<Row, Input extends BaseInput, C extends EngineContext<Row, Input>> {
  workflow: Workflow;
  guards: Record<string, Guard<C>>;
  effects: Record<string, Effect<C>>;
  /** Inside the transaction: the row within the caller's scope, locked for update; throws the entity's not-found code otherwise. */
  lockRow(q: Queryable, id: number, me: AuthContext): Promise<Row>;
  state(row: Row): number;
  /** Needed when an action is versioned. */
  version?(row: Row): number;
  /** Where a transition to "previous" leads. */
  previousState?(row: Row): number;
  /** Whether the caller holds a right the action names for this row (default: any key of `permission`). */
  permitted?(action: WorkflowAction, row: Row, me: AuthContext): boolean;
  /** Why the row's state refuses an action to this caller, when the entity knows better than `wrongState` (the report: recalled by the central hospital). */
  stateError?(row: Row, me: AuthContext): string | undefined;
  /** Whether the entity may be acted on at all now (the report: its exam's state); the code refusing it. */
  gate?(row: Row): string | undefined;
  /** Records an Idempotency-Key in the transaction; false when it was applied before. Absent: the entity keeps no keys. */
  recordRequest?(q: Queryable, me: AuthContext, id: number, name: string, key: string): Promise<boolean>;
  /** The adapter's context from the engine's (its own fields); `preview`: for the list of allowed actions. */
  context(base: EngineContext<Row, Input>, preview: boolean): C;
  /** After the state and reason checks, before the guards: what the call carries beyond a reason (the report's content). */
  prepare?(ctx: C): void | Promise<void>;
  /** Writes the change: the columns of ctx.set, state, version, lock, log entry. */
  write(q: Queryable, ctx: C, change: Change): Promise<void>;
}

export interface PerformResult {
  /** A repeat answered as done (the same Idempotency-Key, or already where an idempotent action leads): nothing was done again. */
  replayed: boolean;
}

function invalid(field: string, detailKey: string): AppError {
  return new AppError('UAA421', { detailKey, field }, { field });
}

/** The declared action of that name, or undefined (a name never reaches a prototype property). */
export function actionOf(w: Workflow, name: string): WorkflowAction | undefined {
  return Object.prototype.hasOwnProperty.call(w.actions, name) ? w.actions[name] : undefined;
}

function permittedBy<Row>(adapter: Pick<Adapter<Row, BaseInput, never>, 'permitted'>, action: WorkflowAction, row: Row, me: AuthContext): boolean {
  return adapter.permitted ? adapter.permitted(action, row, me) : action.permission.some((k) => hasPermission(me.permissions, k));
}

// Reasons are checked against the common.json definition each action names (text200, text3000), by the one ajv.
function checkReason(definition: string, reason: string | undefined): void {
  if (reason === undefined || reason === '') throw invalid('reason', 'validation.required');
  const v = schemaCheck(`common.json#/definitions/${definition}`);
  if (!v(reason)) {
    // The platform's own mapping of a schema failure to UAA421, so the reply reads as any other field's.
    throw validationFailure({ validation: v.errors!.map((e) => ({ ...e, instancePath: '/reason' })), validationContext: 'body' } as unknown as FastifyError);
  }
}

/** Whether a state is where the action leads (an idempotent action found there answers as done); "previous" is no fixed place. */
function leadsTo(action: WorkflowAction, state: number): boolean {
  return action.transitions.some((t) => t.to === state);
}

/**
 * Performs action `name` on entity `id` for the caller. `requestKey` (the
 * Idempotency-Key header) makes a repeated call a no-op where the adapter keeps keys.
 */
export async function perform<Row, Input extends BaseInput, C extends EngineContext<Row, Input>>(
  db: Db,
  adapter: Adapter<Row, Input, C>,
  me: AuthContext,
  id: number,
  name: string,
  input: Input,
  requestKey?: string,
): Promise<PerformResult> {
  return db.tx((q) => performIn(q, adapter, me, { id, name, input, requestKey }));
}

/**
 * perform's body, in the caller's transaction `q`. `platform`: the platform itself acts
 * (an action the table declares `on` an event, see raise): no user's right is asked for.
 */
async function performIn<Row, Input extends BaseInput, C extends EngineContext<Row, Input>>(
  q: Queryable,
  adapter: Adapter<Row, Input, C>,
  me: AuthContext,
  { id, name, input, requestKey, platform = false }: { id: number; name: string; input: Input; requestKey?: string; platform?: boolean },
): Promise<PerformResult> {
  const w = adapter.workflow;
  const action = actionOf(w, name);
  if (!action) throw invalid('action', 'validation.enum');
  const row = await adapter.lockRow(q, id, me);
  if (requestKey && adapter.recordRequest && !(await adapter.recordRequest(q, me, id, name, requestKey))) return { replayed: true };
  if (!(platform ? action.on : permittedBy(adapter, action, row, me))) throw new AppError('UAA103');
  const closed = adapter.gate?.(row);
  if (closed) throw new AppError(closed);
  const versioned = action.versioned !== false;
  const version = versioned ? adapter.version!(row) : 0;
  if (versioned) {
    if (input.version === undefined) throw invalid('version', 'validation.required');
    if (input.version !== version) throw new AppError(w.versionConflict!);
  }
  const from = adapter.state(row);
  const t = transitionFrom(action, from);
  if (!t) {
    if (action.idempotent && leadsTo(action, from)) return { replayed: true };
    throw new AppError(action.stateErrors?.[String(from)] ?? adapter.stateError?.(row, me) ?? w.wrongState);
  }
  if (action.reason) checkReason(action.reason, input.reason);

  const ctx = adapter.context({ q, me, row, input, name, action, now: clock.now(), set: {}, after: [], log: {} }, false);
  if (action.reason) ctx.log.reason = input.reason;
  await adapter.prepare?.(ctx);
  for (const g of action.guards ?? []) {
    const refused = await adapter.guards[g].check(ctx);
    if (refused) throw refusalError(refused);
  }
  for (const f of action.effects ?? []) await adapter.effects[f](ctx);

  const to = t.to === 'previous' ? adapter.previousState!(row) : (t.to ?? from);
  await adapter.write(q, ctx, { name, action, from, to, versioned, log: action.log ? { type: action.log, detail: ctx.log } : null });
  // Rows of other tables that read the entity as just written.
  for (const work of ctx.after) await work();
  return { replayed: false };
}

/**
 * Event `event` happened to entity `id` (the exam became examined), in the transaction
 * `q` that made it happen: the platform performs the actions the table declares `on` it,
 * each where the row (read first, unlocked: `read`; undefined, nothing to do) is in a
 * state it starts from and passes its guards; refused, it is simply not done. `actor`
 * is the platform's own caller (all data, no rights). The names of the actions done.
 */
export async function raise<Row, Input extends BaseInput, C extends EngineContext<Row, Input>>(
  q: Queryable,
  adapter: Adapter<Row, Input, C>,
  actor: AuthContext,
  id: number,
  event: NonNullable<WorkflowAction['on']>[number],
  read: (q: Queryable, id: number) => Promise<Row | undefined>,
): Promise<string[]> {
  const done: string[] = [];
  for (const [name, action] of Object.entries(adapter.workflow.actions)) {
    if (!action.on?.includes(event)) continue;
    // Judged on the row as read before anything is written (no row is made for an action not taken).
    const row = await read(q, id);
    if (!row || !offered(adapter, row, actor, name, action)) continue;
    try {
      await performIn(q, adapter, actor, { id, name, input: { version: adapter.version?.(row) } as Input, platform: true });
      done.push(name);
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
    }
  }
  return done;
}

/**
 * The actions the caller may take on the row now: the entity open to actions, in a
 * state the action starts from, with the right, and passing every guard that does not
 * depend on what the call will carry (a reason, content, a confirmation or a choice is
 * asked for by the client's dialog; the server judges it when the action is sent).
 */
export function allowedActions<Row, Input extends BaseInput, C extends EngineContext<Row, Input>>(adapter: Adapter<Row, Input, C>, row: Row, me: AuthContext): string[] {
  if (adapter.gate?.(row)) return [];
  const state = adapter.state(row);
  let ctx: C | undefined;
  // Guards mostly return their refusals; one that throws refuses here only to say "not
  // offered", so its stack is never read (a guard that fails for another reason is
  // rethrown without its stack).
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return judge();
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }

  function judge(): string[] {
    const allowed: string[] = [];
    for (const [name, action] of actionsFrom(adapter.workflow, state)) {
      if (!permittedBy(adapter, action, row, me)) continue;
      ctx ??= adapter.context({ q: undefined as unknown as Queryable, me, row, input: {} as Input, name, action, now: clock.now(), set: {}, after: [], log: {} }, true);
      // One context for the row, pointed at each action in turn: the guards judging here are
      // synchronous and keep nothing, and a copy per action was most of what a list row cost.
      ctx.name = name;
      ctx.action = action;
      if (passesRowGuards(adapter, ctx)) allowed.push(name);
    }
    return allowed;
  }
}

/** Per workflow table, the actions that start from each state, in the table's order (read for every row of every list). */
const startingActions = new WeakMap<Workflow, Map<number, Array<[string, WorkflowAction]>>>();

function actionsFrom(workflow: Workflow, state: number): Array<[string, WorkflowAction]> {
  let byState = startingActions.get(workflow);
  if (!byState) startingActions.set(workflow, (byState = new Map()));
  let list = byState.get(state);
  if (!list) byState.set(state, (list = Object.entries(workflow.actions).filter(([, action]) => transitionFrom(action, state))));
  return list;
}

/** Whether every guard of the action that judges only the stored row passes (a Refusal or a thrown AppError refuses). */
function passesRowGuards<Row, Input extends BaseInput, C extends EngineContext<Row, Input>>(adapter: Adapter<Row, Input, C>, at: C): boolean {
  try {
    for (const g of at.action.guards ?? []) {
      const guard = adapter.guards[g];
      if (!guard.input && guard.check(at)) return false;
    }
    return true;
  } catch (e) {
    if (e instanceof AppError) return false;
    throw e;
  }
}

/**
 * The platform itself as the caller of the actions the table declares `on` an event
 * (engine.raise): every row within reach, no user's rights, logged without a user.
 */
export const PLATFORM: AuthContext = {
  userId: 0,
  name: '',
  mobile: '',
  status: 1,
  hospitalId: null,
  hospitalName: null,
  roleId: null,
  roleName: null,
  permissions: {},
  scope: { all: true, hospitalIds: [], conditionSets: [] },
  tokenHash: '',
  rememberMe: false,
  passwordExpired: false,
  passwordWeak: false,
};

/** For raise: the platform's action applies to the row as read (open to actions, in a state it starts from, its row guards pass). */
function offered<Row, Input extends BaseInput, C extends EngineContext<Row, Input>>(adapter: Adapter<Row, Input, C>, row: Row, actor: AuthContext, name: string, action: WorkflowAction): boolean {
  if (adapter.gate?.(row) || !transitionFrom(action, adapter.state(row))) return false;
  return passesRowGuards(adapter, adapter.context({ q: undefined as unknown as Queryable, me: actor, row, input: {} as Input, name, action, now: clock.now(), set: {}, after: [], log: {} }, true));
}

/** The body of a call acting on several rows at once (batch unlock, batch print): their ids, a page of a list at most. */
export const BATCH_BODY = {
  type: 'object',
  required: ['ids'],
  properties: { ids: { type: 'array', minItems: 1, maxItems: 100, uniqueItems: true, items: { type: 'integer', minimum: 1 } } },
  additionalProperties: false,
} as const;

/** The rows a batch call refused, each with its catalogue code as the reply envelope names one (status) and its words. */
export const BATCH_REFUSED = {
  type: 'array',
  items: { type: 'object', required: ['id', 'status', 'message'], properties: { id: { type: 'integer' }, status: { type: 'string' }, message: { type: 'string' } } },
} as const;

/**
 * Action `name` on several rows, each judged alone in its own transaction: the ids
 * done, and the others with the catalogue error that refused each. `input` gives a
 * row's input (batch print sends the version it reads).
 */
export async function performEach<Row, Input extends BaseInput, C extends EngineContext<Row, Input>>(
  db: Db,
  adapter: Adapter<Row, Input, C>,
  me: AuthContext,
  ids: number[],
  name: string,
  input: (id: number) => Promise<Input> | Input,
): Promise<{ done: number[]; refused: Array<{ id: number; error: AppError }> }> {
  const done: number[] = [];
  const refused: Array<{ id: number; error: AppError }> = [];
  for (const id of ids) {
    try {
      await perform(db, adapter, me, id, name, await input(id));
      done.push(id);
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      refused.push({ id, error: e });
    }
  }
  return { done, refused };
}
