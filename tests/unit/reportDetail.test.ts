/**
 * The report detail page's pure parts (src/report): what each workflow action asks
 * before it is sent, read from config/workflows/report.json (a reason and its limit,
 * doctors, a hospital) and whether it carries the content; the content's limits from
 * entities/report.json; what a draft sends and what the page refuses before sending;
 * a template applied by replacing or appending; the list the page was opened from and
 * a row's neighbours in it; the reading-room layout: the viewer over half the width by
 * default (at 1366 px at least 683 px), a stored split used only when it adds up and
 * keeps the report pane, panels part by part, pixel widths as shares adding up to 100.
 */
import { applyText, contentBody, draftOf, draftProblems, sameDraft, type Draft } from '../../src/report/content';
import { DEFAULT_LAYOUT, panesOf, readingLayout, sharesOf } from '../../src/report/layout';
import { listOrigin, stepFrom } from '../../src/report/neighbour';
import { carriesContent, contentLimits, needsContent, needsOf, versioned, WORKFLOW } from '../../src/report/workflow';

const empty: Draft = draftOf({});

describe('the workflow as the detail page reads it', () => {
  test('reasons carry their action\'s limit; assign asks doctors, sending upward a hospital, the rest nothing', () => {
    expect(needsOf('reviewReject')).toEqual({ kind: 'reason', limit: { minLength: 1, maxLength: 200 } });
    expect(needsOf('withdraw')).toEqual({ kind: 'reason', limit: { minLength: 1, maxLength: 200 } });
    expect(needsOf('recall')).toEqual({ kind: 'reason', limit: { minLength: 1, maxLength: 3000 } });
    expect(needsOf('return')).toEqual({ kind: 'reason', limit: { minLength: 1, maxLength: 3000 } });
    expect(needsOf('assign')).toEqual({ kind: 'assign', maxDoctors: 10 });
    expect(needsOf('submitSuperiorWrite')).toEqual({ kind: 'superior' });
    expect(needsOf('submitSuperiorReview')).toEqual({ kind: 'superior' });
    for (const name of ['save', 'submit', 'reviewPass', 'lock', 'unlock', 'reportReturn', 'noSuchAction']) expect(needsOf(name)).toEqual({ kind: 'none' });
  });

  test('content goes with the actions that take it; findings and diagnosis are needed to submit or pass; the lock calls carry no version', () => {
    const content = Object.keys(WORKFLOW.actions).filter(carriesContent).sort();
    expect(content).toEqual(['modify', 'recheckPass', 'reviewPass', 'reviewToRecheck', 'save', 'submit']);
    expect(needsContent('submit')).toBe(true);
    expect(needsContent('reviewPass')).toBe(true);
    expect(needsContent('save')).toBe(false);
    expect(['lock', 'renew', 'release', 'unlock'].map(versioned)).toEqual([false, false, false, false]);
    expect(versioned('save')).toBe(true);
  });

  test('limits come from entities/report.json', () => {
    expect(contentLimits()).toEqual({
      see: { minLength: 1, maxLength: 3000 },
      diagnosis: { minLength: 1, maxLength: 3000 },
      remark: { minLength: 1, maxLength: 150 },
      recorder: { minLength: 1, maxLength: 10 },
      description: { minLength: 2, maxLength: 2000 },
    });
  });
});

describe('the draft', () => {
  const limits = contentLimits();

  test('what an action sends: empty texts left out, the critical value only when switched on', () => {
    expect(contentBody(empty)).toEqual({ enableCrisisValue: false });
    const d: Draft = { ...empty, see: '所见', diagnosis: '诊断', remark: ' ', positive: false, enableCrisisValue: true, recorder: '', description: '危急', recordTime: '2026-01-02T03:04:05.000Z' };
    expect(contentBody(d)).toEqual({ see: '所见', diagnosis: '诊断', positive: false, enableCrisisValue: true, crisisValue: { description: '危急', recordTime: '2026-01-02T03:04:05.000Z' } });
    expect(contentBody({ ...d, enableCrisisValue: false })).toEqual({ see: '所见', diagnosis: '诊断', positive: false, enableCrisisValue: false });
  });

  test('refused before sending: too long texts always; findings and diagnosis when submitting; the critical value\'s description and recorder', () => {
    expect(draftProblems(empty, limits, false)).toEqual([]);
    expect(draftProblems(empty, limits, true)).toEqual([
      { field: 'see', key: 'required' },
      { field: 'diagnosis', key: 'required' },
    ]);
    const long = { ...empty, see: 'x'.repeat(3001), diagnosis: '诊断', remark: 'y'.repeat(151) };
    expect(draftProblems(long, limits, false)).toEqual([
      { field: 'see', key: 'maxLength', limit: 3000 },
      { field: 'remark', key: 'maxLength', limit: 150 },
    ]);
    const crisis = { ...empty, enableCrisisValue: true, recorder: '记录人名字超过十个字了吧', description: '短' };
    expect(draftProblems(crisis, limits, false)).toEqual([
      { field: 'recorder', key: 'maxLength', limit: 10 },
      { field: 'description', key: 'minLength', limit: 2 },
    ]);
    expect(draftProblems({ ...crisis, recorder: '', description: '' }, limits, false)).toEqual([{ field: 'description', key: 'required' }]);
  });

  test('read from the detail and compared', () => {
    const d = draftOf({ see: 'a', diagnosis: 'b', positive: true, enableCrisisValue: true, crisisValue: { description: 'cc', recorder: 'r' } });
    expect(d).toEqual({ see: 'a', diagnosis: 'b', remark: '', positive: true, enableCrisisValue: true, recorder: 'r', recordTime: undefined, description: 'cc' });
    expect(sameDraft(d, { ...d })).toBe(true);
    expect(sameDraft(d, { ...d, see: 'a2' })).toBe(false);
    // Switched on and off again: nothing to save.
    expect(sameDraft(empty, { ...empty, recordTime: '2026-01-02T03:04:05.000Z', description: '未存' })).toBe(true);
  });

  test('a template replaces the text, or is appended on a new line', () => {
    expect(applyText('旧', '新', 'replace')).toBe('新');
    expect(applyText('旧', undefined, 'replace')).toBe('');
    expect(applyText('旧', '新', 'append')).toBe('旧\n新');
    expect(applyText('旧\n', '新', 'append')).toBe('旧\n新');
    expect(applyText('', '新', 'append')).toBe('新');
    expect(applyText('旧', '', 'append')).toBe('旧');
  });
});

describe('next report', () => {
  test('the list of the address, if it names one', () => {
    expect(listOrigin('write', 'report')).toEqual({ kind: 'write', model: 'report' });
    expect(listOrigin('mine', null)).toEqual({ kind: 'mine', model: undefined });
    expect(listOrigin('review', 'other')).toEqual({ kind: 'review', model: undefined });
    expect(listOrigin('nonsense', 'report')).toBeUndefined();
    expect(listOrigin(null, null)).toBeUndefined();
  });

  test('a row\'s neighbours', () => {
    const ids = [5, 9, 2, 7];
    expect(stepFrom(ids, 9, 1)).toBe(2);
    expect(stepFrom(ids, 9, -1)).toBe(5);
    expect(stepFrom(ids, 7, 1)).toBeUndefined();
    expect(stepFrom(ids, 5, -1)).toBeUndefined();
    expect(stepFrom(ids, 3, 1)).toBeUndefined();
  });
});

describe('the reading-room layout', () => {
  test('by default the viewer has the larger share: over half the width, measurements folded', () => {
    expect(DEFAULT_LAYOUT.sizes[0]).toBeGreaterThan(50);
    expect(DEFAULT_LAYOUT.sizes[0]).toBeGreaterThan(DEFAULT_LAYOUT.sizes[1] + DEFAULT_LAYOUT.sizes[2] - 1);
    expect((1366 * DEFAULT_LAYOUT.sizes[0]) / 100).toBeGreaterThanOrEqual(683);
    expect(DEFAULT_LAYOUT.sizes.reduce((a, b) => a + b, 0)).toBe(100);
    expect(readingLayout(undefined)).toEqual(DEFAULT_LAYOUT);
    expect(DEFAULT_LAYOUT.panels).toEqual({ series: true, measurements: false });
  });

  test('a stored split is used when it adds up and keeps the report; panels part by part', () => {
    expect(readingLayout({ sizes: [40, 40, 20], measurements: true })).toEqual({ sizes: [40, 40, 20], panels: { series: true, measurements: true } });
    // Folded side tabs are a choice; a folded report pane or shares not adding up are not used.
    expect(readingLayout({ sizes: [70, 30, 0] }).sizes).toEqual([70, 30, 0]);
    expect(readingLayout({ sizes: [80, 0, 20] }).sizes).toEqual(DEFAULT_LAYOUT.sizes);
    expect(readingLayout({ sizes: [50, 20] }).sizes).toEqual(DEFAULT_LAYOUT.sizes);
    expect(readingLayout({ sizes: [50, 20, 10] }).sizes).toEqual(DEFAULT_LAYOUT.sizes);
    expect(readingLayout({ series: false }).panels).toEqual({ series: false, measurements: false });
  });

  test('pixel widths as shares to a tenth adding up to 100; stored as the setting\'s panes', () => {
    expect(sharesOf([683, 410, 273])).toEqual([50, 30, 20]);
    const odd = sharesOf([100, 100, 100]);
    expect(odd.reduce((a, b) => a + b, 0)).toBeCloseTo(100, 5);
    expect(odd.every((x) => Math.abs(x - 33.3) <= 0.2)).toBe(true);
    expect(sharesOf([0, 0, 0])).toEqual([0, 0, 0]);
    const layout = { sizes: [60, 25, 15] as [number, number, number], panels: { series: false, measurements: true } };
    expect(panesOf(layout)).toEqual({ sizes: [60, 25, 15], series: false, measurements: true });
    expect(readingLayout(panesOf(layout))).toEqual(layout);
  });
});
