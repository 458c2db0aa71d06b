/**
 * /consultationRoom?id=<consultation id>: the consultation's video room, full screen
 * (its own chunk, with the viewer). Leaving closes the window when it was opened as
 * one, else goes back.
 */
import { ConsultationRoom, ConsultationScreen } from '../../videoRoom';

export default function ConsultationRoomPage() {
  return <ConsultationScreen leaveKey="entity.videoRoom.leave" render={(id, leave) => <ConsultationRoom key={id} consultationId={id} onLeave={leave} />} />;
}
