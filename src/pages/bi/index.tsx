/**
 * The regional BI cockpit (/bi, a full-screen route for the regional centre's wall
 * screen; spec section 2: overview, trend, sub-region overview, regional patient
 * profile). Laid out by config/cockpit.json through ../../stats/cockpit: each panel is
 * one call of a declared statistics view, so every figure is the server's, cut to the
 * caller's data scope. Dark, large type, readable from across a room; everything is
 * asked again every common-settings refresh.duration minutes.
 */
import { Spin } from 'antd';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslate } from '../../schema/useTranslate';
import { runStats } from '../../services/stats';
import { useCommonSetting } from '../../session/store';
import { formatTime } from '../../shared/format';
import Chart from '../../stats/Chart';
import { SECTIONS, panelChart, panelRequest, panelView, refreshMinutes, type CockpitPanel } from '../../stats/cockpit';
import { formatMeasure, type StatsAnswer } from '../../stats/model';

type Answers = Record<string, StatsAnswer | 'error'>;

const PAGE: React.CSSProperties = {
  minHeight: '100vh',
  background: 'radial-gradient(circle at 50% 0%, #12284a 0%, #07101f 70%)',
  color: '#e6edf5',
  padding: '12px 20px',
  boxSizing: 'border-box',
  display: 'grid',
  gridTemplateRows: 'auto auto 1fr',
  gap: 12,
};
const BOX: React.CSSProperties = { background: 'rgba(20, 40, 70, 0.55)', border: '1px solid rgba(90, 160, 255, 0.25)', borderRadius: 8, padding: '10px 14px', minWidth: 0 };
const HEADING: React.CSSProperties = { fontSize: 22, fontWeight: 600, color: '#7fc3ff', margin: '0 0 6px' };
const CHART_HEIGHT = 300;

function Figures({ panel, answer }: { panel: CockpitPanel; answer: StatsAnswer | 'error' | undefined }) {
  const { t, language } = useTranslate();
  const view = panelView(panel);
  return (
    <div style={{ ...BOX, display: 'grid', gridTemplateColumns: `repeat(${panel.figures!.length}, 1fr)`, gap: 12 }} data-testid={`bi-panel-${panel.key}`}>
      <div style={{ gridColumn: '1 / -1', ...HEADING, fontSize: 20 }}>{t(`stats.bi.panel.${panel.key}`)}</div>
      {panel.figures!.map((m) => (
        <div key={m} style={{ textAlign: 'center' }}>
          <div style={{ fontSize: 18, color: '#9fb3c8' }}>{t(`stats.${panel.view}.measure.${m}`)}</div>
          <div style={{ fontSize: 44, fontWeight: 700, color: '#ffffff', lineHeight: 1.2, fontVariantNumeric: 'tabular-nums' }} data-testid={`bi-figure-${panel.key}-${m}`}>
            {answer && answer !== 'error' ? formatMeasure(view, m, answer.totals[m], language) : '-'}
          </div>
        </div>
      ))}
    </div>
  );
}

function ChartPanel({ panel, answer }: { panel: CockpitPanel; answer: StatsAnswer | 'error' | undefined }) {
  const { t } = useTranslate();
  const option = useMemo(() => (answer && answer !== 'error' ? panelChart(panel, answer, t) : undefined), [panel, answer, t]);
  return (
    <div style={BOX} data-testid={`bi-panel-${panel.key}`}>
      <div style={HEADING}>{t(`stats.bi.panel.${panel.key}`)}</div>
      {option ? (
        <Chart option={option} height={CHART_HEIGHT} theme="dark" testId={`bi-chart-${panel.key}`} />
      ) : (
        <div style={{ height: CHART_HEIGHT, display: 'grid', placeItems: 'center', color: '#9fb3c8', fontSize: 20 }}>{answer === 'error' ? t('stats.empty') : <Spin />}</div>
      )}
    </div>
  );
}

export default function BiCockpit() {
  const { t } = useTranslate();
  const minutes = refreshMinutes(useCommonSetting());
  const [answers, setAnswers] = useState<Answers>({});
  const [updatedAt, setUpdatedAt] = useState<Date | undefined>();

  const load = useCallback(async (signal: AbortSignal) => {
    const now = new Date();
    const panels = SECTIONS.flatMap((s) => s.panels);
    // Panels with the same call share one answer.
    const calls = new Map<string, { view: string; body: ReturnType<typeof panelRequest>['body'] }>();
    for (const p of panels) {
      const r = panelRequest(p, now);
      calls.set(JSON.stringify(r), r);
    }
    const results = new Map<string, StatsAnswer | 'error'>();
    await Promise.all(
      [...calls].map(async ([key, r]) => {
        results.set(key, await runStats(r.view, r.body, signal).catch(() => 'error' as const));
      }),
    );
    if (signal.aborted) return;
    setAnswers(Object.fromEntries(panels.map((p) => [p.key, results.get(JSON.stringify(panelRequest(p, now)))!])));
    setUpdatedAt(new Date());
  }, []);

  useEffect(() => {
    const controller = new AbortController();
    void load(controller.signal);
    const timer = setInterval(() => void load(controller.signal), minutes * 60_000);
    return () => {
      controller.abort();
      clearInterval(timer);
    };
  }, [load, minutes]);

  const [overview, ...rest] = SECTIONS;
  return (
    <div style={PAGE} data-testid="bi-cockpit">
      <header style={{ display: 'flex', alignItems: 'baseline', justifyContent: 'space-between' }}>
        <h1 style={{ margin: 0, fontSize: 36, letterSpacing: 4, color: '#ffffff' }}>{t('stats.bi.title')}</h1>
        <span style={{ fontSize: 18, color: '#9fb3c8' }} data-testid="bi-updated">
          {updatedAt ? t('stats.bi.updatedAt', { time: formatTime(updatedAt), minutes }) : ''}
        </span>
      </header>
      <section style={{ display: 'grid', gridTemplateColumns: '1fr 1fr', gap: 12 }} data-testid={`bi-section-${overview.key}`}>
        {overview.panels.map((p) => (p.figures ? <Figures key={p.key} panel={p} answer={answers[p.key]} /> : <ChartPanel key={p.key} panel={p} answer={answers[p.key]} />))}
      </section>
      <div style={{ display: 'grid', gridTemplateColumns: '1fr 1fr 2fr', gap: 12, alignItems: 'start' }}>
        {rest.map((s) => (
          <section key={s.key} data-testid={`bi-section-${s.key}`} style={{ display: 'grid', gap: 12, gridTemplateColumns: s.panels.length > 2 ? '1fr 1fr' : '1fr' }}>
            <h2 style={{ ...HEADING, gridColumn: '1 / -1', margin: 0, fontSize: 24 }}>{t(`stats.bi.section.${s.key}`)}</h2>
            {s.panels.map((p) => (p.figures ? <Figures key={p.key} panel={p} answer={answers[p.key]} /> : <ChartPanel key={p.key} panel={p} answer={answers[p.key]} />))}
          </section>
        ))}
      </div>
    </div>
  );
}
