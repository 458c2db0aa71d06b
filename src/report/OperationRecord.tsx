/**
 * The operation record tab (GET report/logs/:id): the exam's and the report's entries,
 * newest first, in the columns of entities/reportOperationLog.json as the exam list's
 * record dialog shows them (../schema/rowList). Read again whenever the page's
 * report changes (`revision`).
 */
import { Result, Table } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { rowListColumns } from '../schema/rowList';
import type { RowList } from '../shared/schema/types';
import { useTranslate } from '../schema/useTranslate';
import { operationLogs, REPORT_API } from './api';

const RECORD: RowList = {
  call: { method: 'GET', path: `${REPORT_API}/report/logs/{id}` },
  entity: 'reportOperationLog',
  columns: ['operateTime', 'type', 'operatorName', 'reason'],
};

export function OperationRecord({ examId, revision }: { examId: number; revision: number }) {
  const { t } = useTranslate();
  const [rows, setRows] = useState<Array<Record<string, unknown>>>();
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let live = true;
    operationLogs(examId).then(
      (list) => {
        if (!live) return;
        // The columns are the declared row list's (RECORD), read generically by field name.
        setRows(list as unknown as Array<Record<string, unknown>>);
        setFailed(false);
      },
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [examId, revision]);

  const columns = useMemo(
    () =>
      rowListColumns(RECORD, t).map((c) => ({
        key: c.key,
        title: c.title,
        render: (_: unknown, r: Record<string, unknown>) =>
          c.lines(r).map((line, i) => (
            // Lines of one cell, in the schema's order; the index is their identity.
            <div key={i}>{line}</div>
          )),
      })),
    [t],
  );

  if (failed) return <Result status="warning" title={t('entity.page.loadFailed')} />;
  return (
    <Table
      data-testid="report-record"
      rowKey={(r) => String(r.id)}
      size="small"
      loading={rows === undefined}
      dataSource={rows ?? []}
      columns={columns}
      pagination={false}
      onRow={(r) => ({ 'data-type': String(r.type) }) as never}
    />
  );
}
