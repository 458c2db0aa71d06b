/**
 * The generic renderer of a declared statistics view (schemas/stats/<name>.json): the
 * query bar generated from the declaration (Formily, the one component registry), the
 * declared charts (./Chart, loaded with this screen only), a table of the same rows
 * with the totals, an Excel export for holders of the view's export right, and the
 * drill-through: a bar, slice or row opens the matching list with its filters.
 * `fixed` runs it without a query bar (the home page's today's volumes).
 */
import { createForm } from '@formily/core';
import { Form as FormilyForm } from '@formily/antd-v5';
import { Button, Card, Empty, Space, Table, Typography, message } from 'antd';
import { useCallback, useEffect, useMemo, useState, type MouseEvent } from 'react';
import { useNavigate } from 'umi';
import { saveBlob } from '../schema/components/ExcelImport';
import { usePermissionMap } from '../schema/permissions';
import { SchemaField } from '../schema/registry';
import { useTranslate } from '../schema/useTranslate';
import { exportStats, runStats } from '../services/stats';
import { can } from '../session/access';
import Chart from './Chart';
import { chartModel, drillUrl, formatMeasure, initialValues, toQuerySchema, toRequest, type StatsAnswer, type StatsRow, type StatsValues, type StatsView as View, type DrillPoint } from './model';

export interface StatsViewProps {
  name: string;
  view: View;
  /** Values to run with and no query bar (a dashboard's figure). */
  fixed?: StatsValues;
  chartHeight?: number;
}

type State = { kind: 'idle' } | { kind: 'loading' } | { kind: 'ok'; answer: StatsAnswer; values: StatsValues } | { kind: 'error' };

export function StatsView({ name, view, fixed, chartHeight }: StatsViewProps) {
  const { t, language } = useTranslate();
  const navigate = useNavigate();
  const permissions = usePermissionMap();
  const [values, setValues] = useState<StatsValues>(() => fixed ?? initialValues(view));
  const [state, setState] = useState<State>({ kind: 'idle' });
  const [exporting, setExporting] = useState(false);
  const form = useMemo(() => createForm({ initialValues: values }), []); // eslint-disable-line react-hooks/exhaustive-deps
  const schema = useMemo(() => toQuerySchema(view, t), [view, t]);

  useEffect(() => {
    const controller = new AbortController();
    setState({ kind: 'loading' });
    runStats(name, toRequest(view, values), controller.signal)
      .then((answer) => setState({ kind: 'ok', answer, values }))
      .catch(() => !controller.signal.aborted && setState({ kind: 'error' }));
    return () => controller.abort();
  }, [name, view, values]);

  const search = () => form.submit((v: StatsValues) => setValues({ ...v }));
  const exportFile = async () => {
    setExporting(true);
    try {
      saveBlob(await exportStats(name, toRequest(view, values)), `${t(`stats.${name}.title`)}.xlsx`);
      message.success(t('stats.query.exported'));
    } finally {
      setExporting(false);
    }
  };

  const answer = state.kind === 'ok' ? state.answer : undefined;
  const drill = useCallback(
    (point: DrillPoint) => {
      if (!answer || state.kind !== 'ok') return;
      const url = drillUrl(view, state.values, answer.dimension, point, answer.series);
      if (url) navigate(url);
    },
    [answer, state, view, navigate],
  );

  const measureTitle = (m: string) => t(`stats.${name}.measure.${m}`);
  const columns = answer
    ? [
        { title: t(`stats.dimension.${answer.dimension}`), dataIndex: 'label', key: 'label' },
        ...(answer.series ? [{ title: t(`stats.dimension.${answer.series}`), dataIndex: 'seriesLabel', key: 'seriesLabel' }] : []),
        ...answer.measures.map((m) => ({
          title: measureTitle(m),
          key: m,
          align: 'right' as const,
          render: (_: unknown, r: StatsRow) => formatMeasure(view, m, r.values[m], language),
          // A measure's cell drills to the rows it counts (drill.measures); elsewhere on the row, to the group's.
          onCell: (r: StatsRow) => ({
            onClick: (e: MouseEvent) => {
              e.stopPropagation();
              drill({ key: r.key, seriesKey: r.seriesKey, measure: m });
            },
            'data-testid': `stats-cell-${m}`,
          }),
        })),
      ]
    : [];

  return (
    <div data-testid={`stats-${name}`} style={{ display: 'grid', gap: 16 }}>
      {!fixed && (
        <Card size="small">
          <FormilyForm form={form} layout="vertical" colon={false} feedbackLayout="terse" onAutoSubmit={search}>
            <SchemaField schema={schema} />
          </FormilyForm>
          <Space>
            <Button type="primary" onClick={search} data-testid="stats-search">
              {t('stats.query.search')}
            </Button>
            {view.export && can(permissions, view.export) && (
              <Button onClick={exportFile} loading={exporting} disabled={!answer} data-testid="stats-export">
                {t('stats.query.export')}
              </Button>
            )}
            {view.drill && <Typography.Text type="secondary">{t('stats.query.drillHint')}</Typography.Text>}
          </Space>
        </Card>
      )}
      {state.kind === 'error' && <Empty description={t('stats.empty')} />}
      {answer && answer.rows.length === 0 && <Empty description={t('stats.empty')} data-testid="stats-empty" />}
      {answer && answer.rows.length > 0 && (
        <div style={{ display: 'grid', gap: 16, gridTemplateColumns: `repeat(auto-fit, minmax(360px, 1fr))` }}>
          {view.charts.map((c, i) => {
            const model = chartModel(name, view, c, answer, t);
            return (
              <Card key={`${c.type}-${i}`} size="small">
                <Chart
                  option={model.option}
                  height={chartHeight}
                  testId={`stats-chart-${c.type}`}
                  onPoint={view.drill ? (di, si) => { const p = model.pointKeys(di, si); if (p) drill(p); } : undefined}
                />
              </Card>
            );
          })}
        </div>
      )}
      {answer && (
        <Table<StatsRow>
          data-testid="stats-table"
          size="small"
          bordered
          loading={state.kind !== 'ok'}
          rowKey={(r) => `${String(r.key)}|${String(r.seriesKey)}`}
          columns={columns}
          dataSource={answer.rows}
          pagination={answer.rows.length > 20 ? { pageSize: 20, showSizeChanger: false } : false}
          onRow={(r) => ({ onClick: () => drill({ key: r.key, seriesKey: r.seriesKey }), style: view.drill ? { cursor: 'pointer' } : undefined })}
          summary={() => (
            <Table.Summary.Row>
              <Table.Summary.Cell index={0} colSpan={answer.series ? 2 : 1}>
                <Typography.Text strong>{t('stats.total')}</Typography.Text>
              </Table.Summary.Cell>
              {answer.measures.map((m, i) => (
                <Table.Summary.Cell key={m} index={i + 1} align="right">
                  <Typography.Text strong data-testid={`stats-total-${m}`}>
                    {formatMeasure(view, m, answer.totals[m], language)}
                  </Typography.Text>
                </Table.Summary.Cell>
              ))}
            </Table.Summary.Row>
          )}
        />
      )}
      {state.kind === 'loading' && !answer && <Card loading size="small" />}
    </div>
  );
}

export default StatsView;
