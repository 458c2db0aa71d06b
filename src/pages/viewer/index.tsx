/**
 * /viewer, the diagnostic viewer on a full-screen route (its own chunk: the login and
 * list pages never load Cornerstone). What it shows comes from the address:
 *   ?exam=<id>              the exam's studies (the first series of the first shown)
 *   ?studies=<uid>,<uid>    those studies (&side=1: one viewport each, synchronised)
 *   ?compare=<uid>,<uid>    an image comparison, which the server validates (2 to 16
 *                           studies with images of one patient) and may refuse
 * The server's answer says whether patient identifiers are masked for this user.
 * The viewer's screen, Cornerstone and its viewports start while the server answers
 * (on a session with no studies yet), so that only the images are left to fetch then;
 * the screen shows the studies once the first image is drawn (afterFirstImage).
 * Closing the viewer closes its window when it was opened as one, else goes back.
 */
import { Button, Result, Spin } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useNavigate, useSearchParams } from 'umi';
import { useTranslate } from '../../schema/useTranslate';
import type { RequestError } from '../../services/request';
import { getSession } from '../../session/store';
import { compareStudies, viewerStudies, type StudySelection, type ViewerStudies } from '../../viewer/api';
import { autoLoads } from '../../viewer/launch';
import type { ViewerApi, ViewerStudy } from '../../viewer/types';
import { afterFirstImage, showStudies, startViewer, Viewer } from '../../viewer/Viewer';

const list = (v: string | null) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const NONE: ViewerStudy[] = [];

export default function ViewerPage() {
  const { t } = useTranslate();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const query = params.toString();
  const request = useMemo(() => {
    const p = new URLSearchParams(query);
    const compare = list(p.get('compare'));
    if (compare.length) return { kind: 'compare' as const, selection: { studyUids: compare } };
    const exam = Number(p.get('exam'));
    if (Number.isInteger(exam) && exam > 0) return { kind: 'view' as const, selection: { examIds: [exam] } as StudySelection };
    const studies = list(p.get('studies'));
    if (studies.length) return { kind: p.get('side') === '1' ? ('side' as const) : ('view' as const), selection: { studyUids: studies } };
    return undefined;
  }, [query]);
  const [state, setState] = useState<{ data?: ViewerStudies; session?: ViewerApi; error?: string }>({});
  const options = useMemo(() => ({ sideBySide: request?.kind !== 'view', autoLoad: autoLoads(getSession().user?.setting?.viewConfig) }), [request]);

  useEffect(() => {
    if (!request) return;
    let live = true;
    // Asked first: the server works on it while the screen starts.
    const asked = request.kind === 'compare' ? compareStudies(request.selection) : viewerStudies(request.selection);
    const session = startViewer([], options);
    setState({ session });
    let held: (() => void) | undefined;
    asked.then(
      (data) => {
        if (!live) return;
        showStudies(session, data.list, options);
        // One study: the screen takes the studies (overlays, series list) once its first image
        // is drawn; side by side, the grid needs them to lay the viewports out.
        const update = () => live && setState({ data, session });
        if (options.sideBySide) update();
        else held = afterFirstImage(session, data.list, options.autoLoad, update);
      },
      (e: RequestError) => {
        if (!live) return;
        session.dispose();
        setState({ error: e.message });
      },
    );
    return () => {
      live = false;
      held?.();
      session.dispose();
    };
  }, [request, options]);

  const close = () => {
    if (window.opener && !window.opener.closed) window.close();
    else navigate(-1);
  };
  const back = (
    <Button onClick={close} data-testid="viewer-back">
      {t('entity.viewer.close')}
    </Button>
  );

  if (!request) return <Result status="warning" title={t('entity.viewer.nothing')} extra={back} />;
  if (state.error) return <Result status="error" title={t('entity.viewer.refused')} subTitle={<span data-testid="viewer-refused">{state.error}</span>} extra={back} />;
  if (!state.session) return <Spin size="large" style={{ display: 'block', margin: '30vh auto' }} />;
  // Until the answer: no studies, and nothing of a patient shown (masked).
  return <Viewer studies={state.data?.list ?? NONE} masked={state.data?.masked ?? true} {...options} session={state.session} onClose={close} />;
}
