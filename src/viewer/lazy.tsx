/**
 * <Viewer> for a page that embeds it (the report detail page): the viewer's code,
 * Cornerstone included, is fetched when it first renders, not with the page.
 */
import { Spin } from 'antd';
import { lazy, Suspense } from 'react';
import type { ViewerProps } from './Viewer';

const Loaded = lazy(() => import('./Viewer').then((m) => ({ default: m.Viewer })));

export function LazyViewer(props: ViewerProps) {
  return (
    <Suspense fallback={<Spin style={{ display: 'block', margin: '20vh auto' }} />}>
      <Loaded {...props} />
    </Suspense>
  );
}
