/**
 * One of a view's toolbar actions (view toolbarActions): a button that opens its
 * bespoke dialog, or makes its call (asking first with `confirm`), on the rows ticked
 * in the table when it acts on the selection (disabled while none is). A call's
 * success text gets the answer's counts (./rowActions answerCounts) and `count`, the
 * rows it was made for; a refusal was shown by the request wrapper. A filter button
 * sets query-bar values and runs the list, showing the count its `badge` call answers,
 * asked again each time the list loads.
 */
import { App, Badge, Button, Popconfirm } from 'antd';
import { useEffect, useState } from 'react';
import { request } from '../services/request';
import { ActionDialog } from './dialogs';
import { answerCounts, rowActionTextKey, runToolbarCall } from './rowActions';
import type { ToolbarAction, View } from '../shared/schema/types';
import { useTranslate } from './useTranslate';

export interface ToolbarActionButtonProps {
  view: View;
  action: ToolbarAction;
  /** The rows ticked in the table. */
  rows: Record<string, unknown>[];
  /** After a change: the list reloads (and the selection is cleared). */
  onDone(): void;
  /** A filter button's values, put into the query bar, which then runs. */
  onFilter?(values: Record<string, string | number | boolean>): void;
  /** How many times the list has loaded: a badge asks again when it changes. */
  listLoads?: number;
}

/** The count a badge call answers, asked again when `listLoads` changes; undefined until known or when refused. */
function useBadgeCount(path: string | undefined, listLoads: number): number | undefined {
  const [count, setCount] = useState<number>();
  useEffect(() => {
    if (!path) return undefined;
    const aborter = new AbortController();
    // A count that cannot be had is left out, not shouted about: the list itself still works.
    request<{ count: number }>(path, { quiet: true, signal: aborter.signal }).then(
      (data) => setCount(data?.count),
      () => undefined,
    );
    return () => aborter.abort();
  }, [path, listLoads]);
  return count;
}

export function ToolbarActionButton({ view, action, rows, onDone, onFilter, listLoads = 0 }: ToolbarActionButtonProps) {
  const { t } = useTranslate();
  const count = useBadgeCount(action.badge, listLoads);
  const { message } = App.useApp();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const testId = `toolbar-action-${action.key}`;
  const label = t(rowActionTextKey(view, action));
  const disabled = Boolean(action.selection) && rows.length === 0;
  const chosen = action.selection ? rows : [];

  const run = async () => {
    if (busy) return;
    setBusy(true);
    try {
      const answer = await runToolbarCall(action, chosen);
      message.success(t(rowActionTextKey(view, action, 'Done'), { count: chosen.length, ...answerCounts(answer) }));
      onDone();
    } catch {
      // The request wrapper has already told the user.
    } finally {
      setBusy(false);
    }
  };

  if (action.filter) {
    const values = action.filter;
    return (
      <Badge count={count} overflowCount={999} showZero={false} data-testid={`${testId}-badge`} data-count={count ?? ''}>
        <Button onClick={() => onFilter?.(values)} data-testid={testId}>
          {label}
        </Button>
      </Badge>
    );
  }
  if (action.dialog) {
    return (
      <>
        <Button onClick={() => setOpen(true)} disabled={disabled} data-testid={testId}>
          {label}
        </Button>
        {open && (
          <ActionDialog
            view={view}
            actionKey={action.key}
            spec={action.dialog}
            rows={action.selection ? chosen : undefined}
            onClose={(changed) => {
              setOpen(false);
              if (changed) onDone();
            }}
          />
        )}
      </>
    );
  }
  const button = (
    <Button onClick={action.confirm ? undefined : run} disabled={disabled} loading={busy} data-testid={testId}>
      {label}
    </Button>
  );
  if (!action.confirm || disabled) return button;
  return (
    <Popconfirm
      title={t(rowActionTextKey(view, action, 'Confirm'), { count: chosen.length })}
      okText={t('common.ok')}
      cancelText={t('common.cancel')}
      okButtonProps={{ loading: busy, 'data-testid': `${testId}-ok` }}
      onConfirm={run}
    >
      {button}
    </Popconfirm>
  );
}

export default ToolbarActionButton;
