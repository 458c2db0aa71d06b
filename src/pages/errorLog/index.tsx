/**
 * The error list (spec section 8): script errors this browser collected, newest first,
 * with a button to clear them. Read from localStorage; nothing goes to the server.
 */
import { ProTable, type ProColumns } from '@ant-design/pro-components';
import { Button, Popconfirm, Typography } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { clearErrorLog, readErrorLog, type ErrorLogEntry } from '../../errorLog/store';
import { formatTime } from '../../shared/format';

type Row = ErrorLogEntry & { id: number };

function load(): Row[] {
  return readErrorLog(localStorage).map((e, i) => ({ ...e, id: i }));
}

export default function ErrorLogPage() {
  const { t } = useTranslation();
  const [rows, setRows] = useState<Row[]>(load);
  const reload = useCallback(() => setRows(load()), []);

  const columns: ProColumns<Row>[] = [
    {
      title: t('common.errorLog.time'),
      dataIndex: 'time',
      width: 190,
      render: (_, r) => formatTime(r.time),
    },
    { title: t('common.errorLog.message'), dataIndex: 'message', ellipsis: true },
    { title: t('common.errorLog.url'), dataIndex: 'url', ellipsis: true, width: 280 },
  ];

  return (
    <div data-testid="error-log">
      <ProTable<Row>
        rowKey="id"
        headerTitle={t('menu.errorLog')}
        columns={columns}
        dataSource={rows}
        search={false}
        options={{ reload, density: false, setting: false }}
        pagination={{ pageSize: 20, showSizeChanger: false }}
        expandable={{
          rowExpandable: (r) => Boolean(r.stack),
          expandedRowRender: (r) => (
            <Typography.Paragraph style={{ whiteSpace: 'pre-wrap', fontFamily: 'monospace', fontSize: 12, margin: 0 }}>
              {r.stack}
            </Typography.Paragraph>
          ),
        }}
        locale={{ emptyText: t('common.errorLog.empty') }}
        toolBarRender={() => [
          <Popconfirm
            key="clear"
            title={t('common.errorLog.clearConfirm')}
            okText={t('common.ok')}
            cancelText={t('common.cancel')}
            onConfirm={() => {
              clearErrorLog(localStorage);
              reload();
            }}
          >
            <Button danger disabled={!rows.length} data-testid="error-log-clear">
              {t('common.errorLog.clear')}
            </Button>
          </Popconfirm>,
        ]}
      />
    </div>
  );
}
