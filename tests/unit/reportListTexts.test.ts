/**
 * The report lists' texts and judgements, made once and shared (server/report/read.ts):
 * listSpec's texts per kind, model and whole-region scope, whatever the caller; a
 * session's row judgements (pageActions) across its pages. Its own file: the texts are
 * made by the first caller of a kind, and this file's first callers must be the ones
 * with ids that would show in a text that wrote them in.
 */
import { clock } from '../../server/lib/clock';
import { listSpec, packGuard, pageActions, REMOTE_KINDS, type ListKind } from '../../server/report/read';
import type { AuthContext } from '../../server/identity/sessions';

const KINDS: ListKind[] = ['write', 'review', 'print', 'done', 'mine', 'all'];
const caller = (userId: number, roleId: number, all = false) =>
  ({ userId, roleId, name: '医生', hospitalId: 2, scope: { all, hospitalIds: [1, 2], conditionSets: [] }, permissions: {} }) as unknown as AuthContext;

describe("a report list's texts", () => {
  // Ids no text holds otherwise: one written into a text would show there.
  const first = caller(987_654, 876_543);
  const second = caller(12, 34);
  const texts = (me: AuthContext, kind: ListKind, model?: 'report' | 'remote') => {
    const spec = listSpec(kind, model, me);
    return [spec.select, spec.from, spec.where, spec.defaultSort, spec.scope?.hospitalSql('$99'), spec.keyFrom?.from].join('\n');
  };

  test("hold no caller's id: the caller's ids and the clock are their values", () => {
    for (const model of [undefined, 'report', 'remote'] as const) {
      for (const kind of model === 'remote' ? REMOTE_KINDS : KINDS) {
        const text = texts(first, kind, model);
        expect(text).not.toMatch(/987654|876543/);
        const { params } = listSpec(kind, model, first);
        expect(params).toContainEqual(first.userId);
        // The role's served hospitals are read where the scope is not the whole region.
        if (model === 'remote') expect(params).toContain(first.roleId);
        expect(params!.filter((p) => p instanceof Date)).toHaveLength(1);
      }
    }
  });

  test("are one for every caller of the same reach, each with the caller's values in the same places", () => {
    for (const model of [undefined, 'report', 'remote'] as const) {
      for (const kind of model === 'remote' ? REMOTE_KINDS : KINDS) {
        expect(texts(second, kind, model)).toBe(texts(first, kind, model));
        const a = listSpec(kind, model, first).params!;
        const b = listSpec(kind, model, second).params!;
        expect(b.map((v) => (v === second.userId ? 'user' : v === second.roleId ? 'role' : typeof v))).toEqual(
          a.map((v) => (v === first.userId ? 'user' : v === first.roleId ? 'role' : typeof v)),
        );
      }
    }
  });

  test("a caller who reaches the whole region has texts of their own, without the role's hospitals", () => {
    const region = caller(56, 78, true);
    const own = texts(region, 'write', 'remote');
    expect(own).not.toBe(texts(first, 'write', 'remote'));
    expect(own).not.toContain('remote_org_ids');
    expect(texts(first, 'write', 'remote')).toContain('remote_org_ids');
    expect(listSpec('write', 'remote', region).params).not.toContain(region.roleId);
  });

  test('the business clock is read at each call', () => {
    const before = clock.offsetMs;
    try {
      clock.setOffset(86_400_000);
      const [now] = listSpec('write', 'remote', first).params!.filter((p) => p instanceof Date) as Date[];
      // A day ahead of the wall clock, as the clock now says, not as it said when the texts were made.
      expect(now.getTime() - Date.now()).toBeGreaterThan(86_000_000);
    } finally {
      clock.setOffset(before);
    }
  });
});

describe("a session's row judgements", () => {
  const permissions = { report: ['view', 'write', 'verify', 'recheck', 'print', 'unlock', 'assign', 'operationRecord'] };
  const row = (id: number) => ({ id, examCode: `E${id}`, version: 1, reportState: 1, _guard: packGuard({ hospitalId: 1, examState: 2, sentToSuperior: false, printNumber: 0, see: true }) });

  test("are shared by the session's pages: its context is frozen, as sessionCache hands it out", () => {
    const session = Object.freeze({ ...caller(9, 3), permissions }) as AuthContext;
    const onePage = pageActions(session)(row(1));
    expect(onePage).toContain('lock');
    expect(pageActions(session)(row(2))).toBe(onePage);
  });

  test('are not shared by a context that may still change, nor by another session', () => {
    const open = { ...caller(9, 3), permissions } as AuthContext;
    const onePage = pageActions(open)(row(1));
    expect(pageActions(open)(row(2))).not.toBe(onePage);
    expect(pageActions(open)(row(2))).toEqual(onePage);
    // Another session (fewer rights, as after a role change) judges for itself.
    const viewer = Object.freeze({ ...caller(9, 3), permissions: { report: ['view'] } }) as AuthContext;
    const session = Object.freeze({ ...caller(9, 3), permissions }) as AuthContext;
    expect(pageActions(session)(row(1))).toContain('lock');
    expect(pageActions(viewer)(row(1))).not.toContain('lock');
  });
});
