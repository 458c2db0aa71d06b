/**
 * The report workflow table (config/workflows/report.json) as the server loads it:
 * - it follows schemas/workflow.json and the checks a schema cannot make
 *   (the server refuses to start otherwise: importing server/report/workflow.ts throws)
 * - broken tables are refused, each naming its problem: schema, unknown guard, effect,
 *   permission key, state, catalogue code, reason definition, overlapping transitions
 * - its states are the code table's; every action has its button text in zh-CN, en-US
 *   and ru-RU; the spec's actions are all there
 */
import table from '../../config/workflows/report.json';
import reportState from '../../schemas/codes/reportState.json';
import { resources } from '../../locales';
import { checkWorkflow, WORKFLOW } from '../../server/report/workflow';

const copy = () => JSON.parse(JSON.stringify(table)) as typeof table & Record<string, any>;

describe('report workflow table', () => {
  test('loads: it follows its schema and every cross-check', () => {
    expect(() => checkWorkflow(copy())).not.toThrow();
    expect(Object.keys(WORKFLOW.actions).length).toBeGreaterThan(15);
  });

  test('its states are codes/reportState.json, each once', () => {
    expect(WORKFLOW.states.map((s) => s.value).sort((a, b) => a - b)).toEqual([...reportState.enum].sort((a, b) => a - b));
  });

  test('the spec\'s actions are declared (section 4)', () => {
    expect(Object.keys(WORKFLOW.actions)).toEqual(
      expect.arrayContaining([
        'save', 'submit', 'reviewPass', 'reviewReject', 'recheckPass', 'recheckReject', 'return', 'withdraw', 'recall', 'assign',
        'submitSuperiorWrite', 'submitSuperiorReview', 'reportReturn', 'lock', 'unlock', 'modify',
      ]),
    );
    // Rejects and withdrawals carry at most 200 characters; returns and recalls up to 3000.
    expect([WORKFLOW.actions.reviewReject.reason, WORKFLOW.actions.withdraw.reason, WORKFLOW.actions.return.reason, WORKFLOW.actions.recall.reason]).toEqual([
      'text200', 'text200', 'text3000', 'text3000',
    ]);
    expect(WORKFLOW.actions.recall.guards).toContain('printedNeedsConfirm');
    expect(WORKFLOW.actions.modify.transitions).toEqual([{ from: [2], to: 1 }, { from: [5], to: 2 }]);
  });

  test.each(['zh-CN', 'en-US', 'ru-RU'])('%s has a button text for every action', (lang) => {
    const missing = Object.keys(WORKFLOW.actions).filter((a) => resources[lang][`entity.report.action.${a}`] === undefined);
    expect(missing).toEqual([]);
  });

  const broken: Array<[string, (t: ReturnType<typeof copy>) => void, RegExp]> = [
    ['an action without a permission', (t) => delete t.actions.save.permission, /permission/],
    ['an unknown guard', (t) => t.actions.save.guards.push('noSuchGuard'), /no guard named noSuchGuard/],
    ['an unknown effect', (t) => (t.actions.submit.effects = ['noSuchEffect']), /no effect named noSuchEffect/],
    ['an undeclared permission key', (t) => (t.actions.save.permission = ['report:fly']), /report:fly/],
    ['a state the code table lacks', (t) => (t.actions.save.transitions[0].to = 9), /unknown state 9/],
    ['a state left out', (t) => (t.states = t.states.filter((s: { value: number }) => s.value !== 6)), /state 6/],
    ['a code not in the catalogue', (t) => (t.wrongState = 'REPORT999'), /REPORT999/],
    ['a reason that is no text definition', (t) => (t.actions.reviewReject.reason = 'id'), /reason id/],
    ['two transitions from one state', (t) => t.actions.modify.transitions.push({ from: [2], to: 3 }), /two transitions start from state 2/],
    ['a state error for a state it starts from', (t) => (t.actions.withdraw.stateErrors = { '1': 'REPORT009' }), /stateErrors names state 1/],
    ['an unknown log type', (t) => (t.actions.save.log = 'saveDraft'), /log type saveDraft is not a code of codes\/reportOperationType.json/],
  ];

  test.each(broken)('refuses %s', (_what, breakIt, message) => {
    const t = copy();
    breakIt(t);
    expect(() => checkWorkflow(t)).toThrow(message);
  });
});
