/**
 * Home page: the user's work to act on (config/dashboard.json: each figure shown to
 * holders of its permission keys, a click opens its list; one call per distinct source),
 * today's volumes and the user's own turnaround from declared statistics views, the
 * volume chart (loaded after the figures) and the server's health.
 */
import { Alert, Card, Descriptions, Empty, Statistic, Typography } from 'antd';
import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'umi';
import { renderIcon } from '../../components/icons';
import { getHealth, type GetHealthData as Health } from '../../services/generated/platform';
import { request, RequestError } from '../../services/request';
import { runStats } from '../../services/stats';
import { usePermissionMap } from '../../schema/permissions';
import { figureUrl, measuresOf, sourceKey, valueAt, visibleCharts, visibleFigures, type FigureDef } from '../../stats/dashboard';
import { formatMeasure, getStatsView, initialValues, toRequest, type StatsQuickRange } from '../../stats/model';

// The charts (echarts) load after the figures have answered: the landing page opens
// after every sign-in, and the work to act on comes first.
const StatsView = lazy(() => import('../../stats/StatsView'));

type State = { kind: 'loading' } | { kind: 'ok'; health: Health } | { kind: 'error'; detail: string };

function formatUptime(seconds: number): { d: number; h: number; m: number; s: number } {
  const total = Math.max(0, Math.floor(seconds));
  return { d: Math.floor(total / 86400), h: Math.floor((total % 86400) / 3600), m: Math.floor((total % 3600) / 60), s: total % 60 };
}

/** A statistics view's values over today (or a quick range of it). */
function todayValues(name: string, extra: { dimension?: string; series?: string; measures?: string[] } = {}, range: StatsQuickRange = 'today') {
  const view = getStatsView(name)!;
  const today = initialValues({ ...view, range: { ...view.range, initial: range } });
  return { view, values: { ...today, ...extra } };
}

/** One answer per distinct source of the figures (the notice counts feed several; one view and range, one call). */
function useFigureData(figures: FigureDef[]): Record<string, unknown> {
  const [data, setData] = useState<Record<string, unknown>>({});
  const sources = useMemo(() => [...new Map(figures.map((f) => [sourceKey(f), f])).entries()], [figures]);
  const measures = useMemo(() => measuresOf(figures), [figures]);
  useEffect(() => {
    const controller = new AbortController();
    for (const [key, f] of sources) {
      const answer = f.stats
        ? (() => {
            const { view, values } = todayValues(f.stats.view, {}, (f.stats.range as StatsQuickRange | undefined) ?? 'today');
            return runStats(f.stats.view, { ...toRequest(view, values), measures: measures.get(key) }, controller.signal);
          })()
        : request(f.call!.path, { query: f.call!.query, signal: controller.signal });
      answer.then((d) => !controller.signal.aborted && setData((old) => ({ ...old, [key]: d }))).catch(() => undefined);
    }
    return () => controller.abort();
  }, [sources, measures]);
  return data;
}

/** A figure's text: a statistics measure as its view formats it (hours with one decimal), a count as it is. */
function figureText(f: FigureDef, answer: unknown, language: string): string | number {
  if (!f.stats) return valueAt(answer, f.value ?? '') ?? '-';
  const value = valueAt(answer, `totals.${f.stats.measure}`);
  return value === undefined ? '-' : formatMeasure(getStatsView(f.stats.view)!, f.stats.measure, value, language);
}

function WorkFigures({ onReady }: { onReady: () => void }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const permissions = usePermissionMap();
  const figures = useMemo(() => visibleFigures(permissions), [permissions]);
  const data = useFigureData(figures);
  const ready = figures.every((f) => data[sourceKey(f)] !== undefined);
  useEffect(() => {
    if (ready) onReady();
  }, [ready, onReady]);
  if (!figures.length) return <Empty description={t('stats.dashboard.noWork')} />;
  return (
    <div style={{ display: 'grid', gap: 12, gridTemplateColumns: 'repeat(auto-fill, minmax(180px, 1fr))' }}>
      {figures.map((f) => {
        const answer = data[sourceKey(f)];
        const value = answer === undefined ? undefined : figureText(f, answer, i18n.language);
        return (
          <Card key={f.key} size="small" hoverable onClick={() => navigate(figureUrl(f))} data-testid={`figure-${f.key}`}>
            <Statistic title={t(`stats.dashboard.figure.${f.key}`)} value={value ?? '-'} loading={answer === undefined} />
          </Card>
        );
      })}
    </div>
  );
}

export default function Dashboard() {
  const { t } = useTranslation();
  const permissions = usePermissionMap();
  const charts = useMemo(() => visibleCharts(permissions), [permissions]);
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [figuresReady, setFiguresReady] = useState(false);
  const onFiguresReady = useCallback(() => setFiguresReady(true), []);

  useEffect(() => {
    const controller = new AbortController();
    getHealth({ signal: controller.signal })
      .then((health) => setState({ kind: 'ok', health }))
      .catch((e: unknown) => {
        if (controller.signal.aborted) return;
        const detail = e instanceof RequestError ? `${e.code} (HTTP ${e.httpStatus})` : String(e);
        setState({ kind: 'error', detail });
      });
    return () => controller.abort();
  }, []);

  return (
    <div data-testid="dashboard" style={{ display: 'grid', gap: 16 }}>
      <Card>
        <Typography.Title level={3} style={{ marginTop: 0 }}>
          <span style={{ marginInlineEnd: 12 }}>{renderIcon('logo')}</span>
          {t('common.dashboard.welcome', { appName: t('common.appName') })}
        </Typography.Title>
        <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>
          {t('common.dashboard.intro')}
        </Typography.Paragraph>
      </Card>
      <Card title={t('stats.dashboard.work')} data-testid="dashboard-work">
        {permissions ? <WorkFigures onReady={onFiguresReady} /> : <Card loading bordered={false} />}
      </Card>
      {charts.map((c) => {
        const { view, values } = todayValues(c.view, c.values);
        return (
          <Card key={c.key} title={t(`stats.dashboard.${c.key}`)} data-testid={`dashboard-${c.key}`} loading={!figuresReady}>
            {figuresReady && (
              <Suspense fallback={null}>
                <StatsView name={c.view} view={view} fixed={values} chartHeight={260} />
              </Suspense>
            )}
          </Card>
        );
      })}
      <Card title={t('common.health.title')} loading={state.kind === 'loading'} data-testid="server-health">
        {state.kind === 'ok' && (
          <Descriptions column={1} size="small" bordered>
            <Descriptions.Item label={t('common.health.status')}>
              <Typography.Text type="success">{t('common.health.ok')}</Typography.Text>
            </Descriptions.Item>
            <Descriptions.Item label={t('common.health.db')}>
              <span data-testid="health-db">{state.health.db}</span>
            </Descriptions.Item>
            <Descriptions.Item label={t('common.health.version')}>{state.health.version}</Descriptions.Item>
            <Descriptions.Item label={t('common.health.uptime')}>
              {t('common.health.uptimeValue', formatUptime(state.health.uptime))}
            </Descriptions.Item>
          </Descriptions>
        )}
        {state.kind === 'error' && (
          <Alert type="warning" showIcon message={t('common.health.unavailable')} description={state.detail} />
        )}
      </Card>
    </div>
  );
}
