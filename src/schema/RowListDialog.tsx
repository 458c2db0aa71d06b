/**
 * A row action's read-only list in a dialog (view rowActions[].list): loads the rows
 * for the row once when opened and shows them with the columns of ./rowList. Closing
 * drops them; a refused call was already shown by the request wrapper.
 */
import { Modal, Result, Table } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { loadRowList, rowActionTextKey } from './rowActions';
import { rowListColumns } from './rowList';
import type { RowAction, View } from '../shared/schema/types';
import { useTranslate } from './useTranslate';

export interface RowListDialogProps {
  view: View;
  action: RowAction & { list: NonNullable<RowAction['list']> };
  row: Record<string, unknown>;
  onClose: () => void;
}

export function RowListDialog({ view, action, row, onClose }: RowListDialogProps) {
  const { t } = useTranslate();
  const [rows, setRows] = useState<Array<Record<string, unknown>>>();
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let live = true;
    loadRowList(action, row).then(
      (list) => live && setRows(list),
      () => live && setFailed(true),
    );
    // An answer after the dialog closed has nowhere to go.
    return () => {
      live = false;
    };
    // Once per opening: the dialog is mounted when opened, and a list re-rendering
    // under it (new row objects, same record) must not load it again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const columns = useMemo(
    () =>
      rowListColumns(action.list, t).map((c) => ({
        key: c.key,
        title: c.title,
        render: (_: unknown, r: Record<string, unknown>) =>
          c.lines(r).map((line, i) => (
            // Lines of one cell, in the schema's order; the index is their identity.
            <div key={i}>{line}</div>
          )),
      })),
    [action.list, t],
  );

  return (
    <Modal
      open
      title={t(rowActionTextKey(view, action))}
      width={880}
      footer={null}
      onCancel={onClose}
      destroyOnClose
    >
      <div data-testid={`row-list-${action.key}`}>
        {failed ? (
          <Result status="warning" title={t('entity.page.loadFailed')} />
        ) : (
          <Table
            rowKey={(r) => String(r.id ?? JSON.stringify(r))}
            size="small"
            loading={rows === undefined}
            dataSource={rows ?? []}
            columns={columns}
            pagination={false}
            scroll={{ y: 480 }}
          />
        )}
      </div>
    </Modal>
  );
}

export default RowListDialog;
