/**
 * The exam's images beside the report: the embedded viewer (its code and Cornerstone
 * fetched when it first renders) on the exam's studies, or the empty state when the
 * exam has none or the user may not view images. The viewer lays itself out over the
 * whole window; this pane is its containing block (CSS containment), so it stays in
 * the pane. Its close button hides it until the user shows the images again; which of
 * its side panels show is the page's (the user's remembered choice).
 */
import { PictureOutlined } from '@ant-design/icons';
import { Button, Empty, Spin } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslate } from '../schema/useTranslate';
import { usePermissionMap } from '../schema/permissions';
import { can } from '../session/access';
import { getSession } from '../session/store';
import { viewerStudies, type ViewerStudies } from '../viewer/api';
import { autoLoads } from '../viewer/launch';
import { LazyViewer } from '../viewer/lazy';
import type { ViewerPanels } from '../viewer/types';

export function ImagesPane({ examId, hasImages, panels, onPanels }: { examId: number; hasImages: boolean; panels?: ViewerPanels; onPanels?: (panels: ViewerPanels) => void }) {
  const { t } = useTranslate();
  const allowed = can(usePermissionMap(), 'image:view');
  const [data, setData] = useState<ViewerStudies | null>();
  const [hidden, setHidden] = useState(false);

  useEffect(() => {
    if (!allowed || !hasImages) return undefined;
    let live = true;
    setData(undefined);
    viewerStudies({ examIds: [examId] }).then(
      (d) => live && setData(d),
      () => live && setData(null),
    );
    return () => {
      live = false;
    };
  }, [examId, hasImages, allowed]);

  const empty = (text: string) => (
    <div data-testid="report-no-images" style={{ height: '100%', display: 'flex', alignItems: 'center', justifyContent: 'center', background: '#141414' }}>
      <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={<span style={{ color: '#bbb' }}>{text}</span>} />
    </div>
  );
  if (!allowed) return empty(t('entity.page.forbidden'));
  if (!hasImages || data === null || (data && !data.list.length)) return empty(t('entity.report.detail.noImages'));
  if (hidden) {
    return (
      <div style={{ height: '100%', display: 'flex', alignItems: 'center', justifyContent: 'center', background: '#141414' }}>
        <Button icon={<PictureOutlined />} onClick={() => setHidden(false)} data-testid="report-show-images">
          {t('entity.report.detail.showImages')}
        </Button>
      </div>
    );
  }
  if (!data) return <Spin style={{ display: 'block', margin: '30vh auto' }} />;
  return (
    <div data-testid="report-images" style={{ position: 'relative', height: '100%', contain: 'layout paint' }}>
      <LazyViewer studies={data.list} masked={data.masked} sideBySide={false} autoLoad={autoLoads(getSession().user?.setting?.viewConfig)}
        panels={panels}
        onPanels={onPanels}
        onClose={() => setHidden(true)}
      />
    </div>
  );
}
