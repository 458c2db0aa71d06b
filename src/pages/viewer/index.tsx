/**
 * /viewer, the diagnostic viewer on a full-screen route (its own chunk: the login and
 * list pages never load Cornerstone). What it shows comes from the address:
 *   ?exam=<id>              the exam's studies (the first series of the first shown)
 *   ?studies=<uid>,<uid>    those studies (&side=1: one viewport each, synchronised)
 *   ?compare=<uid>,<uid>    an image comparison, which the server validates (2 to 16
 *                           studies with images of one patient) and may refuse
 * The server's answer says whether patient identifiers are masked for this user.
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
import type { ViewerApi } from '../../viewer/types';
import { startViewer, Viewer } from '../../viewer/Viewer';

const list = (v: string | null) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);

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

  useEffect(() => {
    if (!request) return;
    let live = true;
    let session: ViewerApi | undefined;
    setState({});
    (request.kind === 'compare' ? compareStudies(request.selection) : viewerStudies(request.selection)).then(
      (data) => {
        if (!live) return;
        // Opened at once: the series' metadata is fetched while the screen renders.
        session = startViewer(data.list, { sideBySide: request.kind !== 'view', autoLoad: autoLoads(getSession().user?.setting?.viewConfig) });
        setState({ data, session });
      },
      (e: RequestError) => live && setState({ error: e.message }),
    );
    return () => {
      live = false;
      session?.dispose();
    };
  }, [request]);

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
  if (!state.data) return <Spin size="large" style={{ display: 'block', margin: '30vh auto' }} />;
  return (
    <Viewer
      studies={state.data.list}
      masked={state.data.masked}
      sideBySide={request.kind !== 'view'}
      autoLoad={autoLoads(getSession().user?.setting?.viewConfig)}
      session={state.session}
      onClose={close}
    />
  );
}
