/**
 * The exam list's and the image record's "view images" (dialog registry name
 * ViewerLauncher): opens the viewer for the row, by exam (props.by "exam", the row's id)
 * or by study (props.by "study", the row's studyUid), where the user's viewer settings
 * say (./launch.ts), and closes at once: it shows nothing of its own. A blocked pop-up
 * falls back to this tab.
 */
import { useEffect, useRef } from 'react';
import { useNavigate } from 'umi';
import type { ActionDialogProps } from '../schema/dialogs';
import { useCommonSetting } from '../session/store';
import { launchViewer, type ViewerTarget } from './launch';

export default function ViewerLauncher({ row, props, onClose }: ActionDialogProps) {
  const navigate = useNavigate();
  const viewConfig = useCommonSetting()?.viewConfig;
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const target: ViewerTarget | undefined =
      props.by === 'study' ? (typeof row?.studyUid === 'string' ? { studyUids: [row.studyUid], compare: false } : undefined) : typeof row?.id === 'number' ? { examId: row.id } : undefined;
    if (!target) {
      onClose(false);
      return;
    }
    void launchViewer(target, viewConfig, (path) => navigate(path)).finally(() => onClose(false));
  }, [row, props.by, viewConfig, navigate, onClose]);
  return null;
}
