/**
 * Doctors' signatures on printed reports (dialog registry name "PrintSignatures", the
 * print layout list's toolbar at /qualityControl): the doctors of the caller's
 * hospitals who have a signature picture (uploaded with the user), the picture, and
 * whether it prints (printSignature resource; switching needs reportPage:edit). A
 * layout prints a doctor's picture only where it signs with pictures and the picture
 * is active here. Bespoke because each row is a live switch, not a form.
 */
import { App, Empty, Modal, Switch, Table } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { AuthImage } from '../../schema/components/AuthImage';
import type { ActionDialogProps } from '../../schema/dialogs';
import { usePermissionMap } from '../../schema/permissions';
import { useTranslate } from '../../schema/useTranslate';
import { can } from '../../session/access';
import { postPrintSignatureList, postPrintSignatureSave } from '../../services/generated/report';
import type { PrintSignature } from '../../shared/generated/entities/printSignature';
import { REPORT_API } from '../api';

const PAGE_SIZE = 10;
const field = (name: string) => `entity.printSignature.field.${name}`;

export default function SignatureDialog({ title, onClose }: ActionDialogProps) {
  const { t } = useTranslate();
  const { message } = App.useApp();
  const editable = can(usePermissionMap(), 'reportPage:edit');
  const [page, setPage] = useState(1);
  const [data, setData] = useState<{ list: PrintSignature[]; total: number }>();
  const [busy, setBusy] = useState<number>();

  const load = useCallback(async () => {
    try {
      const reply = await postPrintSignatureList({ page, pageSize: PAGE_SIZE, filters: {} });
      // The generic resource list answers open rows (server/lib/resource.ts); this one's are the printSignature view's.
      setData({ list: (reply.list ?? []) as unknown as PrintSignature[], total: reply.total ?? 0 });
    } catch {
      // The request wrapper has told the user.
      setData({ list: [], total: 0 });
    }
  }, [page]);
  useEffect(() => {
    void load();
  }, [load]);

  const toggle = async (row: PrintSignature, active: boolean) => {
    setBusy(row.id);
    try {
      await postPrintSignatureSave({ id: row.id, active });
      message.success(t('entity.printSignature.saved'));
      await load();
    } catch {
      // shown by the request wrapper
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <Modal open title={title} width={720} footer={null} onCancel={() => onClose(false)} destroyOnClose>
      <Table<PrintSignature>
        rowKey="id"
        size="small"
        loading={!data}
        dataSource={data?.list}
        data-testid="print-signatures"
        locale={{ emptyText: <Empty description={t('entity.printSignature.empty')} /> }}
        pagination={{ current: page, pageSize: PAGE_SIZE, total: data?.total ?? 0, onChange: setPage, hideOnSinglePage: true }}
        columns={[
          { title: t(field('name')), dataIndex: 'name' },
          { title: t(field('hospitalNames')), dataIndex: 'hospitalNames' },
          {
            title: t('entity.printSignature.picture'),
            key: 'picture',
            render: (_v, row) => <AuthImage path={`${REPORT_API}/printSignature/image/${row.id}`} alt={row.name ?? ''} width={100} height={65} testId="signature-picture" />,
          },
          {
            title: t(field('active')),
            key: 'active',
            render: (_v, row) => (
              <Switch checked={row.active} disabled={!editable} loading={busy === row.id} onChange={(on) => toggle(row, on)} data-testid={`signature-active-${row.id}`} />
            ),
          },
        ]}
      />
    </Modal>
  );
}
