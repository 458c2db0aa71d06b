/**
 * A pick action's dialog (view rowActions[].pick): another view's list (its columns
 * and query bar, or the pick's `columns` and `query`) always filtered by the pick's `filters`
 * for the row, one row chosen with a radio (or a click on the row), then OK makes
 * the pick's call (the exam list's manual match: an unmatched study of the exam's
 * hospital). A refusal was shown by the request wrapper and the dialog stays open.
 */
import { ProTable } from '@ant-design/pro-components';
import { App, Modal, Result } from 'antd';
import { useMemo, useState } from 'react';
import { AuthImage } from './components/AuthImage';
import { loadOptions } from './options';
import { resourceApi } from './resource';
import { pickFilters, rowActionTextKey, runPick } from './rowActions';
import { toColumns, toListQuery, type Row } from './toColumns';
import { useLatestList } from './useLatestList';
import type { PickSpec, RowAction, View } from '../shared/schema/types';
import { useTranslate } from './useTranslate';
import { getView } from '../shared/schema/views';

export interface PickDialogProps {
  view: View;
  action: RowAction & { pick: PickSpec };
  row: Row;
  onClose(changed: boolean): void;
}

export function PickDialog({ view, action, row, onClose }: PickDialogProps) {
  const { t, language } = useTranslate();
  const { message } = App.useApp();
  const [picked, setPicked] = useState<Row>();
  const [busy, setBusy] = useState(false);
  const latestList = useLatestList<Row>();
  const source = getView(action.pick.view);

  // The list to pick from: its own view, with the pick's query bar and the row's filters fixed.
  const pickView = useMemo<View | undefined>(
    () =>
      source && {
        ...source,
        // Sorting stays on the columns shown.
        list: {
          ...source.list,
          columns: action.pick.columns ?? source.list.columns,
          query: action.pick.query ?? source.list.query,
          sortable: source.list.sortable?.filter((f) => (action.pick.columns ?? source.list.columns).includes(f)),
        },
        fixedFilters: { ...source.fixedFilters, ...(pickFilters(action, row) as View['fixedFilters']) },
      },
    [source, action, row],
  );
  const columns = useMemo(
    () => (pickView ? toColumns(pickView, { t, locale: language, loadOptions: (s) => loadOptions(s, t), renderImage: (path, alt) => <AuthImage path={path} alt={alt} /> }) : []),
    [pickView, t, language],
  );

  const ok = async () => {
    if (!picked || busy) return;
    setBusy(true);
    try {
      await runPick(action, row, picked);
      message.success(t(rowActionTextKey(view, action, 'Done'), { name: '' }));
      onClose(true);
    } catch {
      // The request wrapper has already told the user; another row may be chosen.
    } finally {
      setBusy(false);
    }
  };

  const testId = `pick-${action.key}`;
  return (
    <Modal
      open
      title={t(rowActionTextKey(view, action))}
      width={1100}
      okText={t('common.ok')}
      cancelText={t('common.cancel')}
      okButtonProps={{ disabled: !picked, loading: busy, 'data-testid': `${testId}-ok` }}
      onOk={ok}
      onCancel={() => onClose(false)}
      destroyOnClose
    >
      <div data-testid={testId}>
        {!pickView ? (
          <Result status="warning" title={t('entity.page.noView')} subTitle={action.pick.view} />
        ) : (
          <ProTable<Row>
            rowKey="id"
            columns={columns}
            cardProps={{ bodyStyle: { padding: 0 } }}
            request={(params, sort) =>
              latestList(async (signal) => {
                const reply = await resourceApi(pickView.resource).list(toListQuery(pickView, params, sort), signal);
                return { data: reply?.list ?? [], total: reply?.total ?? 0, success: true };
              })
            }
            rowSelection={{
              type: 'radio',
              selectedRowKeys: picked ? [picked.id as number] : [],
              onChange: (_keys, rows) => setPicked(rows[0]),
            }}
            tableAlertRender={false}
            onRow={(r) => ({ onClick: () => setPicked(r), style: { cursor: 'pointer' } })}
            search={{ labelWidth: 'auto', defaultCollapsed: false, span: 8 }}
            form={{ syncToUrl: false }}
            options={false}
            pagination={{ defaultPageSize: 10, showSizeChanger: false }}
            scroll={{ x: 'max-content', y: 360 }}
            size="small"
          />
        )}
      </div>
    </Modal>
  );
}

export default PickDialog;
