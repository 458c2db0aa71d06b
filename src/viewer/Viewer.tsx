/**
 * The diagnostic viewer's screen (issue #7): toolbar, series panel with thumbnails
 * (click, or drag onto a viewport), a grid of 1x1 up to 4x4 viewports with overlays
 * and a scrollbar each, and the measurement list. It drives one viewer session
 * (./session.ts) from mount to unmount; leaving the screen disposes it. Keys (./keys.ts,
 * listed by the toolbar's keys button): arrows step through the active stack, Page
 * Up/Down by ten, Home/End to the ends (outside text fields); Alt+arrows step and
 * Alt+Page Up/Down go to the previous/next series anywhere, so a report can be typed
 * and the images read without reaching for the mouse. The series and measurement
 * panels fold away (a host may keep the choice: `panels`, `onPanels`); the overlay
 * keeps its corners apart however small the viewport (./overlay.ts fitOverlay).
 */
import {
  BorderOutlined,
  CloseOutlined,
  ColumnWidthOutlined,
  DeleteOutlined,
  DragOutlined,
  LinkOutlined,
  PauseOutlined,
  CaretRightOutlined,
  RedoOutlined,
  SettingOutlined,
  SwapOutlined,
  UndoOutlined,
  ZoomInOutlined,
  BgColorsOutlined,
  AppstoreOutlined,
  BulbOutlined,
  MenuFoldOutlined,
  MenuUnfoldOutlined,
  QuestionCircleOutlined,
  UnorderedListOutlined,
} from '@ant-design/icons';
import { Badge, Button, ConfigProvider, Divider, Dropdown, Empty, InputNumber, Popover, Slider, Space, Tag, Tooltip, Typography, theme } from 'antd';
import { startTransition, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore, type CSSProperties } from 'react';
import { AuthImage } from '../schema/components/AuthImage';
import { useTranslate } from '../schema/useTranslate';
import { apiBase } from '../services/request';
import { dicomDateText } from '../utils/dicom';
import { GRID_MAX, cellCount, gridFor, gridText, viewportId, type Grid } from './layout';
import { readingCommand, stepSeries } from './keys';
import { KeysHelp } from './KeysHelp';
import { OVERLAY_LINE, fitOverlay, overlayOf, type OverlayLine } from './overlay';
import { PRESET_KEYS, type PresetKey } from './presets';
import { openViewer } from './session';
import { TOOL_KEYS, type ToolKey } from './tools';
import type { Measurement, ViewerApi, ViewerPanels, ViewerSnapshot, ViewerStudy, ViewportInfo } from './types';
import { ViewerSettings } from './ViewerSettings';

export interface ViewerProps {
  studies: ViewerStudy[];
  /** Patient identifiers are masked for this user: overlays take them from the studies, not from DICOM. */
  masked: boolean;
  /** One viewport per study, synchronised (a comparison, or a share of one). */
  sideBySide: boolean;
  /** Load images as the viewer opens (else the user picks a series). */
  autoLoad: boolean;
  /**
   * A session the host opened already (startViewer, as soon as it knew the studies: the
   * metadata is then on its way while this screen first renders); the host disposes it.
   * Without one the screen opens and disposes its own.
   */
  session?: ViewerApi;
  /** Which side panels show at first (default both); `onPanels` hears each change (a host that remembers it). */
  panels?: ViewerPanels;
  onPanels?(panels: ViewerPanels): void;
  onClose(): void;
}

const ALL_PANELS: ViewerPanels = { series: true, measurements: true };

type ShowOptions = Pick<ViewerProps, 'sideBySide' | 'autoLoad'>;

/**
 * Opens a viewer session on the studies and asks for what it shows first. A host that
 * asks the server for the studies opens it on none and renders <Viewer session> at
 * once: the screen, Cornerstone and the viewports start while the server answers, and
 * showStudies then leaves only the images to fetch.
 */
export function startViewer(studies: ViewerStudy[], options: ShowOptions): ViewerApi {
  const session = openViewer({ studies: [], base: apiBase() });
  showStudies(session, studies, options);
  return session;
}

/** Gives the session its studies and asks for what it shows first (one study, or one per viewport side by side). */
export function showStudies(session: ViewerApi, studies: ViewerStudy[], { sideBySide, autoLoad }: ShowOptions): void {
  session.setStudies(studies);
  session.setSync(sideBySide);
  if (autoLoad && studies.length) {
    if (sideBySide) void session.openComparison(studies.map((s) => s.studyUid));
    else void session.openStudy(studies[0].studyUid);
  }
}

/**
 * Calls `then` once the session's first image is drawn (or a viewport failed), at the
 * latest after CONTROLS_WAIT_MS; at once when nothing loads by itself. A host holds its
 * screen's updates until then: the page's main thread stays free while the server works
 * on the metadata and the first frame (on a 2-core machine a render and its paint slow
 * the server's answer down).
 */
export function afterFirstImage(session: ViewerApi, studies: ViewerStudy[], autoLoad: boolean, then: () => void): () => void {
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    unsubscribe();
    clearTimeout(timer);
    then();
  };
  const unsubscribe = session.subscribe(() => {
    if (session.snapshot().viewports.some((v) => v.rendered || v.error)) finish();
  });
  const timer = setTimeout(finish, CONTROLS_WAIT_MS);
  if (!autoLoad || !studies.some((s) => s.series.length)) finish();
  return () => {
    done = true;
    unsubscribe();
    clearTimeout(timer);
  };
}

const SERIES_MIME = 'application/x-rcloud-series';
const DEFAULT_FPS = 10;
/** The longest the controls wait for the first image once the studies are known, or for the studies (a slow server must not leave the reader without a close button). */
const CONTROLS_WAIT_MS = 1000;
/** Sizes the controls take, kept by their stand-ins so that the viewports do not move when they come. */
const TOOLBAR_HEIGHT = 37;
const SERIES_WIDTH = 156;
const MEASUREMENTS_WIDTH = 200;
const k = (key: string) => `entity.viewer.${key}`;

const TOOL_ICONS: Record<ToolKey, JSX.Element> = {
  windowLevel: <BulbOutlined />,
  pan: <DragOutlined />,
  zoom: <ZoomInOutlined />,
  length: <ColumnWidthOutlined />,
  angle: <span style={{ fontWeight: 600 }}>∠</span>,
  rectangleRoi: <BorderOutlined />,
  ellipseRoi: <span style={{ fontWeight: 600 }}>◯</span>,
};

/** One object: a new theme object at each render would have antd work its tokens out again. */
const DARK = { algorithm: theme.darkAlgorithm };

export function Viewer(props: ViewerProps) {
  return (
    <ConfigProvider theme={DARK}>
      <ViewerScreen {...props} />
    </ConfigProvider>
  );
}

const EMPTY: ViewerSnapshot = { viewports: [], measurements: [], tool: 'windowLevel', sync: false };

/**
 * The screen: viewports first, then the controls (toolbar, series and measurement
 * panels, scrollbars). The controls are antd components in the dark theme, whose styles
 * antd generates on their first render in the page (a few hundred ms of the main thread
 * in a new window on a busy 2-core machine): they come once the first image is drawn (or
 * a viewport failed, or nothing loads by itself), at the latest CONTROLS_WAIT_MS after
 * the studies came (or the screen, if the studies are slow to come), in the place their
 * stand-ins kept for them. The wheel, the keys and the mouse tools work from the start.
 */
function ViewerScreen(props: ViewerProps) {
  const { studies, sideBySide, autoLoad, session: hosted } = props;
  const [api, setApi] = useState<ViewerApi>();

  useEffect(() => {
    if (hosted) {
      setApi(hosted);
      return () => setApi(undefined);
    }
    const session = startViewer(studies, { sideBySide, autoLoad });
    setApi(session);
    return () => {
      setApi(undefined);
      session.dispose();
    };
  }, [hosted, studies, sideBySide, autoLoad]);

  const subscribe = useCallback((fn: () => void) => (api ? api.subscribe(fn) : () => undefined), [api]);
  const snap = useSyncExternalStore(subscribe, () => api?.snapshot() ?? EMPTY);
  // The first image is up, or nothing will come by itself.
  const shown = !autoLoad || snap.viewports.some((v) => v.rendered || v.error) || (studies.length > 0 && !studies.some((s) => s.series.length));
  const [controls, setControls] = useState(false);
  useEffect(() => {
    if (controls) return undefined;
    const show = () => startTransition(() => setControls(true));
    if (shown) {
      show();
      return undefined;
    }
    // Counted again from the studies' coming: not set off while their first image loads.
    const timer = setTimeout(show, CONTROLS_WAIT_MS);
    return () => clearTimeout(timer);
  }, [controls, shown, studies]);
  return <ViewerLayout {...props} api={api} snap={snap} controls={controls} />;
}

interface LayoutProps extends ViewerProps {
  api?: ViewerApi;
  snap: ViewerSnapshot;
  /** The controls may render (else stand-ins of their size). */
  controls: boolean;
}

function ViewerLayout({ studies, masked, sideBySide, autoLoad, onClose, api, snap, controls, panels: initialPanels, onPanels }: LayoutProps) {
  const { t } = useTranslate();
  const [panels, setPanels] = useState<ViewerPanels>(initialPanels ?? ALL_PANELS);
  const toggle = (panel: keyof ViewerPanels) => {
    const next = { ...panels, [panel]: !panels[panel] };
    setPanels(next);
    onPanels?.(next);
  };
  const [grid, setGrid] = useState<Grid>(() => (sideBySide ? gridFor(studies.length) : { rows: 1, columns: 1 }));
  const [active, setActive] = useState(viewportId(0));
  const [fps, setFps] = useState<number>();
  const [settings, setSettings] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  // Side by side, a viewport per study: the studies may come after the screen (a host that asks the server).
  const count = studies.length;
  useEffect(() => {
    if (sideBySide && count) setGrid(gridFor(count));
  }, [sideBySide, count]);
  const byId = useMemo(() => new Map(snap.viewports.map((v) => [v.id, v])), [snap]);
  const current = byId.get(active);
  const studyOf = useCallback((uid?: string) => studies.find((s) => s.studyUid === uid), [studies]);
  // When the controls are on the screen (the bench reads it).
  useEffect(() => {
    if (controls) performance.mark('viewer:controls');
  }, [controls]);

  // Keys anywhere on the screen read the active viewport (./keys.ts): plain keys outside text fields, Alt keys anywhere but in a dialog.
  const shownSeries = current?.seriesUid;
  useEffect(() => {
    if (!api) return;
    const onKey = (e: globalThis.KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (target?.closest('.ant-modal')) return;
      const inField = Boolean(target?.closest('input, textarea, select, [contenteditable=true]'));
      const command = readingCommand({ key: e.key, altKey: e.altKey, ctrlKey: e.ctrlKey, metaKey: e.metaKey, shiftKey: e.shiftKey, inField });
      if (!command) return;
      if (command.kind === 'image') api.scrollBy(active, command.delta);
      else if (command.kind === 'imageAt') api.scrollTo(active, command.at === 'first' ? 0 : Number.MAX_SAFE_INTEGER);
      else {
        const next = stepSeries(studies, shownSeries, command.delta);
        if (next) void api.loadSeries(active, next.studyUid, next.seriesUid);
      }
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [api, active, studies, shownSeries]);

  const cells = Array.from({ length: cellCount(grid) }, (_, i) => viewportId(i));
  const playing = !!current?.playing;
  const rate = fps ?? current?.frameRate ?? DEFAULT_FPS;

  return (
    <div
      ref={root}
      tabIndex={-1}
      data-testid="viewer"
      data-masked={masked ? 'true' : 'false'}
      style={{ position: 'fixed', inset: 0, display: 'flex', flexDirection: 'column', background: '#000', outline: 'none' }}
    >
      {controls ? (
        <Toolbar
          api={api}
          snap={snap}
          active={active}
          playing={playing}
          rate={rate}
          onRate={setFps}
          grid={grid}
          onGrid={setGrid}
          syncable={sideBySide || cells.length > 1}
          onSettings={() => setSettings(true)}
          onClose={onClose}
          panels={panels}
          onToggle={toggle}
          measurements={snap.measurements.length}
          t={t}
        />
      ) : (
        <div style={{ flex: 'none', height: TOOLBAR_HEIGHT }} />
      )}
      <div style={{ flex: 1, display: 'flex', minHeight: 0 }}>
        {!panels.series ? null : controls ? (
          <SeriesPanel
            studies={studies}
            shown={snap.viewports}
            // Thumbnails are rendered by the server: asked for once the first image is up, not in its way.
            thumbnails={!autoLoad || snap.viewports.some((v) => v.rendered || v.error)}
            onPick={(studyUid, seriesUid) => {
              void api?.loadSeries(active, studyUid, seriesUid);
              root.current?.focus();
            }}
            t={t}
          />
        ) : (
          <div style={{ flex: 'none', width: SERIES_WIDTH, padding: 6, borderRight: '1px solid transparent' }} />
        )}
        <div
          data-testid="viewer-grid"
          data-grid={gridText(grid)}
          style={{ flex: 1, display: 'grid', gridTemplateRows: `repeat(${grid.rows}, 1fr)`, gridTemplateColumns: `repeat(${grid.columns}, 1fr)`, gap: 2, padding: 2, minWidth: 0 }}
        >
          {cells.map((id) => (
            <ViewportCell
              key={id}
              id={id}
              api={api}
              info={byId.get(id)}
              study={studyOf(byId.get(id)?.studyUid)}
              masked={masked}
              controls={controls}
              active={id === active}
              onActivate={() => {
                setActive(id);
                root.current?.focus();
              }}
              t={t}
            />
          ))}
        </div>
        {!panels.measurements ? null : controls ? (
          <MeasurementPanel measurements={snap.measurements} onRemove={(uid) => api?.removeMeasurement(uid)} t={t} />
        ) : (
          <div style={{ flex: 'none', width: MEASUREMENTS_WIDTH, padding: 8, borderLeft: '1px solid transparent' }} />
        )}
      </div>
      {settings && <ViewerSettings onClose={() => setSettings(false)} />}
    </div>
  );
}

interface ToolbarProps {
  api?: ViewerApi;
  snap: ViewerSnapshot;
  active: string;
  playing: boolean;
  rate: number;
  onRate(fps: number | undefined): void;
  grid: Grid;
  onGrid(g: Grid): void;
  syncable: boolean;
  onSettings(): void;
  onClose(): void;
  panels: ViewerPanels;
  onToggle(panel: keyof ViewerPanels): void;
  /** How many measurements there are (shown on the panel's button while it is folded). */
  measurements: number;
  t: (key: string) => string;
}

function Toolbar({ api, snap, active, playing, rate, onRate, grid, onGrid, syncable, onSettings, onClose, panels, onToggle, measurements, t }: ToolbarProps) {
  const { token } = theme.useToken();
  const tb = (key: string, title: string, icon: JSX.Element, onClick: () => void, extra: { type?: 'primary'; disabled?: boolean } = {}) => (
    <Tooltip title={title} key={key}>
      <Button size="small" icon={icon} onClick={onClick} data-testid={`viewer-${key}`} aria-label={title} {...extra} />
    </Tooltip>
  );
  return (
    <div
      style={{
        flex: 'none',
        boxSizing: 'border-box',
        minHeight: TOOLBAR_HEIGHT,
        display: 'flex',
        alignItems: 'center',
        flexWrap: 'wrap',
        gap: 8,
        padding: '6px 8px',
        color: token.colorText,
        background: token.colorBgContainer,
        borderBottom: `1px solid ${token.colorBorder}`,
      }}
    >
      <Space.Compact>
        {TOOL_KEYS.map((key) =>
          tb(`tool-${key}`, t(k(`tool.${key}`)), TOOL_ICONS[key], () => api?.setTool(key), { type: snap.tool === key ? 'primary' : undefined }),
        )}
      </Space.Compact>
      <Dropdown
        trigger={['click']}
        menu={{
          items: PRESET_KEYS.map((key) => ({ key, label: <span data-testid={`viewer-preset-${key}`}>{t(k(`preset.${key}`))}</span> })),
          onClick: ({ key }) => api?.applyPreset(active, key as PresetKey),
        }}
      >
        <Button size="small" icon={<BgColorsOutlined />} data-testid="viewer-presets">
          {t(k('presets'))}
        </Button>
      </Dropdown>
      <Space.Compact>
        {tb('rotate', t(k('rotate')), <RedoOutlined />, () => api?.rotate(active))}
        {tb('flipH', t(k('flipH')), <SwapOutlined />, () => api?.flip(active, 'horizontal'))}
        {tb('flipV', t(k('flipV')), <SwapOutlined rotate={90} />, () => api?.flip(active, 'vertical'))}
        {tb('invert', t(k('invert')), <BgColorsOutlined />, () => api?.invert(active))}
        {tb('reset', t(k('reset')), <UndoOutlined />, () => api?.reset(active))}
      </Space.Compact>
      <Space.Compact>
        {tb('cine', t(k(playing ? 'stop' : 'play')), playing ? <PauseOutlined /> : <CaretRightOutlined />, () =>
          playing ? api?.stop(active) : api?.play(active, rate),
        )}
        <InputNumber
          size="small"
          min={1}
          max={60}
          value={rate}
          onChange={(v) => onRate(typeof v === 'number' ? v : undefined)}
          addonAfter={t(k('fps'))}
          style={{ width: 110 }}
          data-testid="viewer-fps"
        />
      </Space.Compact>
      <LayoutPicker grid={grid} onPick={onGrid} t={t} />
      {syncable &&
        tb('sync', t(k(snap.sync ? 'syncOn' : 'syncOff')), <LinkOutlined />, () => api?.setSync(!snap.sync), { type: snap.sync ? 'primary' : undefined })}
      <div style={{ flex: 1 }} />
      <Space.Compact>
        {tb('toggle-series', t(k(panels.series ? 'hideSeries' : 'showSeries')), panels.series ? <MenuFoldOutlined /> : <MenuUnfoldOutlined />, () => onToggle('series'), {
          type: panels.series ? 'primary' : undefined,
        })}
        <Tooltip title={t(k(panels.measurements ? 'hideMeasurements' : 'showMeasurements'))}>
          <Badge count={panels.measurements ? 0 : measurements} size="small">
            <Button
              size="small"
              icon={<UnorderedListOutlined />}
              type={panels.measurements ? 'primary' : undefined}
              onClick={() => onToggle('measurements')}
              data-testid="viewer-toggle-measurements"
              aria-label={t(k(panels.measurements ? 'hideMeasurements' : 'showMeasurements'))}
            />
          </Badge>
        </Tooltip>
      </Space.Compact>
      <Popover content={<KeysHelp t={t} testId="viewer-keys-help" />} title={t(k('keys.title'))} trigger={['hover', 'click']}>
        <Button size="small" icon={<QuestionCircleOutlined />} data-testid="viewer-keys" aria-label={t(k('keys.title'))} />
      </Popover>
      {tb('settings', t(k('settings.title')), <SettingOutlined />, onSettings)}
      {tb('close', t(k('close')), <CloseOutlined />, onClose)}
    </div>
  );
}

function LayoutPicker({ grid, onPick, t }: { grid: Grid; onPick(g: Grid): void; t: (key: string) => string }) {
  const [open, setOpen] = useState(false);
  const [hover, setHover] = useState<Grid>();
  const shown = hover ?? grid;
  const matrix = (
    <div data-testid="viewer-layouts" onMouseLeave={() => setHover(undefined)}>
      <div style={{ display: 'grid', gridTemplateColumns: `repeat(${GRID_MAX}, 20px)`, gap: 3 }}>
        {Array.from({ length: GRID_MAX * GRID_MAX }, (_, i) => {
          const g = { rows: Math.floor(i / GRID_MAX) + 1, columns: (i % GRID_MAX) + 1 };
          const lit = g.rows <= shown.rows && g.columns <= shown.columns;
          return (
            <div
              key={i}
              data-testid={`viewer-layout-${gridText(g)}`}
              onMouseEnter={() => setHover(g)}
              onClick={() => {
                onPick(g);
                setOpen(false);
              }}
              style={{ width: 20, height: 20, cursor: 'pointer', border: '1px solid #888', background: lit ? '#1677ff' : 'transparent' }}
            />
          );
        })}
      </div>
      <div style={{ textAlign: 'center', marginTop: 4 }}>{gridText(shown)}</div>
    </div>
  );
  return (
    <Popover content={matrix} trigger="click" open={open} onOpenChange={setOpen}>
      <Button size="small" icon={<AppstoreOutlined />} data-testid="viewer-layout">
        {t(k('layout'))} {gridText(grid)}
      </Button>
    </Popover>
  );
}

interface SeriesPanelProps {
  studies: ViewerStudy[];
  shown: ViewportInfo[];
  thumbnails: boolean;
  onPick(studyUid: string, seriesUid: string): void;
  t: (key: string, p?: Record<string, unknown>) => string;
}

function SeriesPanel({ studies, shown, thumbnails, onPick, t }: SeriesPanelProps) {
  const { token } = theme.useToken();
  const showing = new Set(shown.map((v) => v.seriesUid));
  return (
    <div data-testid="viewer-series" style={{ width: 156, overflowY: 'auto', padding: 6, background: token.colorBgContainer, borderRight: `1px solid ${token.colorBorder}` }}>
      {studies.map((study) => (
        <div key={study.studyUid} data-testid="viewer-study" data-study-uid={study.studyUid} style={{ marginBottom: 10 }}>
          <Typography.Text strong style={{ display: 'block', fontSize: 12 }}>
            {[dicomDateText(study.studyDate), study.modality].filter(Boolean).join(' ')}
          </Typography.Text>
          <Typography.Text type="secondary" ellipsis={{ tooltip: study.studyDescription }} style={{ display: 'block', fontSize: 12, width: 140 }}>
            {study.studyDescription}
          </Typography.Text>
          {study.series.map((se) => {
            const label = [se.seriesNumber !== undefined ? `#${se.seriesNumber}` : '', se.seriesDescription].filter(Boolean).join(' ');
            return (
              <div
                key={se.seriesUid}
                draggable
                onDragStart={(e) => {
                  e.dataTransfer.setData(SERIES_MIME, JSON.stringify({ studyUid: study.studyUid, seriesUid: se.seriesUid }));
                  e.dataTransfer.effectAllowed = 'copy';
                }}
                onClick={() => onPick(study.studyUid, se.seriesUid)}
                data-testid="viewer-series-item"
                data-series-uid={se.seriesUid}
                title={t(k('dragHint'))}
                style={{
                  marginTop: 6,
                  cursor: 'grab',
                  padding: 4,
                  borderRadius: token.borderRadiusSM,
                  border: `1px solid ${showing.has(se.seriesUid) ? token.colorPrimary : 'transparent'}`,
                }}
              >
                {se.thumbnail && thumbnails ? (
                  <AuthImage path={se.thumbnail} alt={label} width={136} height={136} testId="viewer-thumbnail" />
                ) : (
                  <div style={{ width: 136, height: 136, background: '#111' }} />
                )}
                <Typography.Text ellipsis={{ tooltip: label }} style={{ display: 'block', width: 136, fontSize: 12 }}>
                  {label}
                </Typography.Text>
                <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                  {[se.modality, t(k('images'), { count: se.instanceCount ?? 0 })].filter(Boolean).join(' · ')}
                </Typography.Text>
              </div>
            );
          })}
        </div>
      ))}
    </div>
  );
}

interface CellProps {
  id: string;
  api?: ViewerApi;
  info?: ViewportInfo;
  study?: ViewerStudy;
  masked: boolean;
  /** The scrollbar may render (an antd Slider: it comes with the other controls). */
  controls: boolean;
  active: boolean;
  onActivate(): void;
  t: (key: string, p?: Record<string, unknown>) => string;
}

function ViewportCell({ id, api, info, study, masked, controls, active, onActivate, t }: CellProps) {
  const element = useRef<HTMLDivElement>(null);
  const cell = useRef<HTMLDivElement>(null);
  const [dragOver, setDragOver] = useState(false);
  // The cell's height decides how many overlay lines fit (fitOverlay).
  const [height, setHeight] = useState(0);
  useLayoutEffect(() => {
    const el = cell.current;
    if (!el) return;
    setHeight(el.clientHeight);
    const observer = new ResizeObserver(() => setHeight(el.clientHeight));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  useLayoutEffect(() => {
    const el = element.current;
    if (!api || !el) return;
    api.attach(id, el);
    return () => api.detach(id);
  }, [api, id]);

  const overlay = info ? fitOverlay(overlayOf(info, study, masked, t), height) : undefined;
  // Each corner at most half the width less the edges, one line per text cut with an ellipsis: corners never overlap.
  const corner = (lines: OverlayLine[] | undefined, style: CSSProperties, testId: string) => (
    <div
      data-testid={testId}
      style={{
        position: 'absolute',
        pointerEvents: 'none',
        maxWidth: 'calc(50% - 16px)',
        fontSize: 12,
        lineHeight: `${OVERLAY_LINE}px`,
        color: '#e8e8e8',
        textShadow: '0 0 2px #000, 0 0 2px #000',
        ...style,
      }}
    >
      {(lines ?? []).map((l) => (
        <div key={l.key} data-testid={`overlay-${l.key}`} title={l.text} style={{ whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis' }}>
          {l.text}
        </div>
      ))}
    </div>
  );
  const message = info?.error
    ? info.error.kind === 'undecodable'
      ? t('entity.viewer.error.undecodable', { syntax: info.error.syntaxes.join(', ') })
      : t(info.error.kind === 'metadata' ? 'entity.viewer.error.metadata' : 'entity.viewer.error.loadFailed')
    : info?.seriesUid && !info.rendered
      ? t(k('loading'))
      : !info?.seriesUid
        ? t(k('empty'))
        : '';
  const total = info?.total ?? 0;
  // The scrollbar's room is kept until the stack is known to be one image: the viewport does not shrink as its first image comes.
  const scrollbar = total !== 1;

  return (
    <div
      ref={cell}
      data-testid="viewport-cell"
      data-viewport-id={id}
      onMouseDown={onActivate}
      onDragOver={(e) => {
        if (!e.dataTransfer.types.includes(SERIES_MIME)) return;
        e.preventDefault();
        setDragOver(true);
      }}
      onDragLeave={() => setDragOver(false)}
      onDrop={(e) => {
        setDragOver(false);
        const raw = e.dataTransfer.getData(SERIES_MIME);
        if (!raw || !api) return;
        e.preventDefault();
        const { studyUid, seriesUid } = JSON.parse(raw) as { studyUid: string; seriesUid: string };
        onActivate();
        void api.loadSeries(id, studyUid, seriesUid);
      }}
      style={{ position: 'relative', minWidth: 0, minHeight: 0, border: `1px solid ${dragOver ? '#faad14' : active ? '#1677ff' : '#333'}`, background: '#000' }}
    >
      <div
        ref={element}
        data-testid="viewport"
        data-viewport-id={id}
        data-rendered={info?.rendered ? 'true' : 'false'}
        data-index={info?.index ?? 0}
        data-total={total}
        data-loaded={info?.loaded ?? 0}
        onContextMenu={(e) => e.preventDefault()}
        style={{ position: 'absolute', inset: 0, right: scrollbar ? 18 : 0 }}
      />
      {corner(overlay?.topLeft, { top: 4, left: 6 }, 'overlay-top-left')}
      {corner(overlay?.topRight, { top: 4, right: scrollbar ? 24 : 6, textAlign: 'right' }, 'overlay-top-right')}
      {corner(overlay?.bottomLeft, { bottom: 4, left: 6 }, 'overlay-bottom-left')}
      {corner(overlay?.bottomRight, { bottom: 4, right: scrollbar ? 24 : 6, textAlign: 'right' }, 'overlay-bottom-right')}
      {info && total > 1 && info.loaded < total && (
        <div data-testid="viewport-progress" style={{ position: 'absolute', top: 0, left: 0, height: 2, width: `${(100 * info.loaded) / total}%`, background: '#1677ff' }} />
      )}
      {message && (
        <div
          data-testid={info?.error ? 'viewport-error' : 'viewport-message'}
          style={{ position: 'absolute', inset: 0, display: 'flex', alignItems: 'center', justifyContent: 'center', padding: 24, textAlign: 'center', pointerEvents: 'none', color: info?.error ? '#ff7875' : '#999' }}
        >
          {message}
        </div>
      )}
      {controls && total > 1 && (
        <div style={{ position: 'absolute', top: 8, bottom: 8, right: 2, width: 14 }} onMouseDown={(e) => e.stopPropagation()}>
          <Slider
            vertical
            reverse
            min={0}
            max={total - 1}
            value={info?.index ?? 0}
            onChange={(v) => api?.scrollTo(id, v)}
            tooltip={{ formatter: (v) => `${(v ?? 0) + 1}/${total}` }}
            style={{ height: '100%', margin: 0 }}
            data-testid="viewport-scrollbar"
          />
        </div>
      )}
    </div>
  );
}

function MeasurementPanel({ measurements, onRemove, t }: { measurements: Measurement[]; onRemove(uid: string): void; t: (key: string, p?: Record<string, unknown>) => string }) {
  const { token } = theme.useToken();
  return (
    <div data-testid="viewer-measurements" style={{ width: 200, overflowY: 'auto', padding: 8, color: token.colorText, background: token.colorBgContainer, borderLeft: `1px solid ${token.colorBorder}` }}>
      <Typography.Text strong>{t(k('measurements'))}</Typography.Text>
      <Divider style={{ margin: '6px 0' }} />
      {!measurements.length && <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t(k('noMeasurements'))} />}
      {measurements.map((m) => (
        <div key={m.uid} data-testid="measurement" data-tool={m.tool} style={{ marginBottom: 8 }}>
          <Space size={4} style={{ width: '100%', justifyContent: 'space-between' }}>
            <Tag>{t(k(`tool.${m.tool}`))}</Tag>
            <Button size="small" type="text" icon={<DeleteOutlined />} onClick={() => onRemove(m.uid)} aria-label={t('entity.action.delete')} />
          </Space>
          {m.values.map((v) => (
            <div key={v.label} data-testid={`measurement-${v.label}`} style={{ fontSize: 12 }}>
              {t(k(`measure.${v.label}`))}: {v.value.toFixed(v.label === 'angle' ? 1 : 2)} {v.unit}
            </div>
          ))}
        </div>
      ))}
    </div>
  );
}
