/**
 * The video consultation room extension (issue #20 items 6 and 7): its own folder, like
 * the viewer. The route /consultationRoom renders <ConsultationRoom consultationId>,
 * /consultationReplay <ConsultationReplay consultationId> (the kept session, stepped
 * through afterwards); they pull in the viewer (Cornerstone), so only those routes load it.
 */
export { ConsultationRoom, ROOM_SOCKET_PATH } from './Room';
export { ConsultationReplay } from './Replay';
export { ConsultationScreen } from './Screen';
export { replayFrame, namesOf, type ReplayFrame } from './timeline';
export { webcamProblem, WEBCAM_PROBLEM_TEXT, type WebcamProblem } from './media';
export { reconcile, sameView, viewStateOf, SHARED_VIEWPORT, type ViewState } from './sync';
