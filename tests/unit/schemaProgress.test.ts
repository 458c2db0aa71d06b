/**
 * A view's `progress` hint (the exam list's regional send column): the cell gets the
 * state's label, the bar's look the hint maps it to, done of total and the error from
 * the row's other fields; a row never sent shows "-"; without a renderer, the label.
 */
import { toColumns, type Column } from '@/schema/toColumns';
import type { Translate } from '@/shared/schema/types';
import { getView } from '@/shared/schema/views';

const t: Translate = (key) => key;
const view = getView('exam')!;
const render = (column: Column | undefined, row: Record<string, unknown>) =>
  (column?.render as (dom: unknown, row: Record<string, unknown>) => unknown)(null, row);

describe('progress columns', () => {
  const cells: unknown[] = [];
  const column = toColumns(view, { t, renderProgress: (cell) => (cells.push(cell), 'bar') }).find((c) => c.dataIndex === 'sendState');

  test('a failed send: label, exception bar, done of total and the reason', () => {
    expect(render(column, { sendState: 'failure', sendDone: 2, sendTotal: 5, sendError: 'no connection to 127.0.0.1:104' })).toBe('bar');
    expect(cells.pop()).toEqual({ label: 'code.sendState.failure', status: 'exception', done: 2, total: 5, error: 'no connection to 127.0.0.1:104' });
  });

  test('a send under way is active, without an error', () => {
    render(column, { sendState: 'sending', sendDone: 0, sendTotal: 300, sendError: null });
    expect(cells.pop()).toEqual({ label: 'code.sendState.sending', status: 'active', done: 0, total: 300, error: undefined });
  });

  test('never sent: a dash; no renderer: the label', () => {
    expect(render(column, {})).toBe('-');
    const plain = toColumns(view, { t }).find((c) => c.dataIndex === 'sendState');
    expect(render(plain, { sendState: 'success', sendDone: 5, sendTotal: 5 })).toBe('code.sendState.success');
  });
});
