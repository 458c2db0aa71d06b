/**
 * /teleConsultionPlatform (issue #20 item 3): the declared consultation list
 * (schemas/views/consultation.json: my applications / my worklist, rows with the
 * actions the server allows) under what a list view cannot say — the counts, the
 * caller's unread notices (invited, started, report ready) and the button that opens
 * the application wizard (/consultationProcess). Rows open /consultationDetail.
 */
import { PlusOutlined } from '@ant-design/icons';
import type { ActionType } from '@ant-design/pro-components';
import { Alert, Button, Card, Flex, Space, Statistic, Tag } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'umi';
import { consultCounts, type ConsultCounts } from '../../consult/api';
import { allows, usePermissionMap } from '../../schema/permissions';
import { SchemaTable } from '../../schema/SchemaTable';
import { useTranslate } from '../../schema/useTranslate';
import { getView } from '../../shared/schema/views';

export default function ConsultationPlatform() {
  const { t } = useTranslate();
  const navigate = useNavigate();
  const map = usePermissionMap();
  const actionRef = useRef<ActionType>();
  const [counts, setCounts] = useState<ConsultCounts>();
  const view = getView('consultation')!;

  useEffect(() => {
    let live = true;
    consultCounts().then(
      (c) => live && setCounts(c),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);

  return (
    <div data-testid="consult-platform">
      <Card size="small" style={{ marginBottom: 12 }}>
        <Flex justify="space-between" align="center" wrap gap={12}>
          <Space size={32} data-testid="consult-counts">
            <Statistic title={t('entity.consultation.kind.applied')} value={counts?.applied ?? '-'} />
            <Statistic title={t('entity.consultation.kind.worklist')} value={counts?.worklist ?? '-'} />
            {counts && counts.toReview > 0 && <Tag color="orange">{t('entity.consultation.detail.toReview', { count: counts.toReview })}</Tag>}
          </Space>
          {allows(map, 'consult', 'start') && (
            <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate('/consultationProcess')} data-testid="consult-apply">
              {t('entity.consultation.action.apply')}
            </Button>
          )}
        </Flex>
        {counts && counts.notices > 0 && (
          <Alert style={{ marginTop: 12 }} type="info" showIcon message={t('entity.consultation.detail.notices', { count: counts.notices })} data-testid="consult-notices" />
        )}
      </Card>
      <div data-testid="resource-list" data-view="consultation">
        <SchemaTable view={view} actionRef={actionRef} onOpen={(_mode, row) => row?.id !== undefined && navigate(`/consultationDetail?id=${row.id}`)} />
      </div>
    </div>
  );
}
