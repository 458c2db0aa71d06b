/**
 * A full-screen page of a consultation's video room (/consultationRoom, /consultationReplay):
 * the consultation id from the query, and leaving, which closes the window when it was
 * opened as one, else goes back. The pages differ only in what they render.
 */
import { Button, Result } from 'antd';
import type { ReactElement } from 'react';
import { useNavigate, useSearchParams } from 'umi';
import { useTranslate } from '../schema/useTranslate';

export function ConsultationScreen({ leaveKey, render }: { leaveKey: string; render(consultationId: number, leave: () => void): ReactElement }) {
  const { t } = useTranslate();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const id = Number(params.get('id'));
  const leave = () => {
    if (window.opener && !window.opener.closed) window.close();
    else navigate(-1);
  };
  if (!Number.isInteger(id) || id <= 0) return <Result status="warning" title={t('error.CONSULT002')} extra={<Button onClick={leave}>{t(leaveKey)}</Button>} />;
  return render(id, leave);
}
