/**
 * /consultationReplay?id=<consultation id>: the replay of the consultation's video room
 * (its kept events, stepped through in the viewer), full screen, its own chunk with the
 * viewer. Closing closes the window when it was opened as one, else goes back.
 */
import { ConsultationReplay, ConsultationScreen } from '../../videoRoom';

export default function ConsultationReplayPage() {
  return <ConsultationScreen leaveKey="entity.videoRoom.replayClose" render={(id, leave) => <ConsultationReplay key={id} consultationId={id} onLeave={leave} />} />;
}
