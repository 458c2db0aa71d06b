/**
 * The navbar's identity menu (spec section 2), at the right end after language, full
 * screen and theme: who is logged in and where, change hospital (only with 2+
 * hospitals), change password, logout.
 */
import { Avatar, Button, Dropdown, Typography, App } from 'antd';
import type { MenuProps } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'umi';
import { renderIcon } from '../components/icons';
import { homePath } from '../routes/table';
import { changeHospital } from '../services/uaa';
import ChangePasswordDialog from '../session/ChangePasswordDialog';
import { LOGIN_PATH } from '../session/guard';
import HospitalChooser from '../session/HospitalChooser';
import { loadUserInfo, signOut, useSession } from '../session/store';

export default function IdentityActions() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const { user } = useSession();
  const [dialog, setDialog] = useState<'hospital' | 'password' | null>(null);
  if (!user) return null;

  const hospitals = user.hospitals ?? [];
  const name = user.name || user.details?.name || user.mobile || '';

  const items: MenuProps['items'] = [
    ...(hospitals.length > 1
      ? [{ key: 'hospital', icon: renderIcon('hospital'), label: <span data-testid="change-hospital">{t('auth.hospital.change')}</span> }]
      : []),
    { key: 'password', icon: renderIcon('password'), label: <span data-testid="change-password">{t('auth.password.title')}</span> },
    { type: 'divider' },
    { key: 'logout', icon: renderIcon('logout'), danger: true, label: <span data-testid="logout">{t('auth.logout')}</span> },
  ];

  const onMenu: MenuProps['onClick'] = ({ key }) => {
    if (key === 'hospital') setDialog('hospital');
    else if (key === 'password') setDialog('password');
    else if (key === 'logout') {
      void signOut().then(() => navigate(LOGIN_PATH, { replace: true }));
    }
  };

  return (
    <>
      <Dropdown trigger={['click']} menu={{ items, onClick: onMenu }} placement="bottomRight">
        <Button type="text" data-testid="user-menu" style={{ height: 'auto', paddingBlock: 4, display: 'flex', alignItems: 'center', gap: 8 }}>
          <Avatar size="small" icon={renderIcon('user')} />
          <span style={{ display: 'flex', flexDirection: 'column', alignItems: 'flex-start', lineHeight: 1.25, maxWidth: 220 }}>
            <Typography.Text strong ellipsis style={{ maxWidth: 220 }} data-testid="user-name">
              {name}
            </Typography.Text>
            {user.hospitalName && (
              <Typography.Text type="secondary" ellipsis style={{ fontSize: 12, maxWidth: 220 }} data-testid="user-hospital">
                {user.hospitalName}
              </Typography.Text>
            )}
          </span>
        </Button>
      </Dropdown>
      <HospitalChooser
        open={dialog === 'hospital'}
        hospitals={hospitals}
        currentId={user.hospitalId}
        testIdPrefix="hospital-option-"
        onCancel={() => setDialog(null)}
        onChoose={async (id) => {
          if (id !== user.hospitalId) {
            const changed = await changeHospital(id);
            await loadUserInfo({ force: true });
            message.success(t('auth.hospital.changed', { name: changed.hospitalName }));
          }
          setDialog(null);
          navigate(homePath);
        }}
      />
      <ChangePasswordDialog open={dialog === 'password'} onClose={() => setDialog(null)} />
    </>
  );
}
