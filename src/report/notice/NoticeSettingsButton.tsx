/**
 * The navbar's way to the exam-upload notification settings (./NoticeSettings, loaded
 * on first click so the schema form stays out of the first page load). Shown to users
 * who work in the report or remote centre, the modules notices are about.
 */
import { Button, Tooltip } from 'antd';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { renderIcon } from '../../components/icons';
import { canSee } from '../../session/access';
import { useSession } from '../../session/store';
import { MODEL_PAGE, type NoticeModel } from './counts';

const NoticeSettings = lazy(() => import('./NoticeSettings'));

export function NoticeSettingsButton() {
  const { t } = useTranslation();
  const { user } = useSession();
  const [open, setOpen] = useState(false);
  if (!(Object.keys(MODEL_PAGE) as NoticeModel[]).some((m) => canSee(user?.permissionMap, m))) return null;
  const label = t('entity.notice.settings.title');
  return (
    <>
      <Tooltip title={label}>
        <Button type="text" icon={renderIcon('notice')} onClick={() => setOpen(true)} data-testid="notice-settings-open" aria-label={label} />
      </Tooltip>
      {open && (
        <Suspense fallback={null}>
          <NoticeSettings onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </>
  );
}
