/**
 * /consultationRoom?id=<consultation id>: the consultation's video room, full screen
 * (its own chunk, with the viewer). Leaving closes the window when it was opened as
 * one, else goes back.
 */
import { Button, Result } from 'antd';
import { useNavigate, useSearchParams } from 'umi';
import { useTranslate } from '../../schema/useTranslate';
import { ConsultationRoom } from '../../videoRoom';

export default function ConsultationRoomPage() {
  const { t } = useTranslate();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const id = Number(params.get('id'));
  const leave = () => {
    if (window.opener && !window.opener.closed) window.close();
    else navigate(-1);
  };
  if (!Number.isInteger(id) || id <= 0) return <Result status="warning" title={t('error.CONSULT002')} extra={<Button onClick={leave}>{t('entity.videoRoom.leave')}</Button>} />;
  return <ConsultationRoom key={id} consultationId={id} onLeave={leave} />;
}
