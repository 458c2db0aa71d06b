/**
 * The video consultation room extension (issue #20 items 6 and 7): its own folder, like
 * the viewer. The route /consultationRoom renders <ConsultationRoom consultationId>;
 * it pulls in the viewer (Cornerstone), so it is loaded only by that route.
 */
export { ConsultationRoom, ROOM_SOCKET_PATH } from './Room';
export { webcamProblem, WEBCAM_PROBLEM_TEXT, type WebcamProblem } from './media';
export { reconcile, sameView, viewStateOf, SHARED_VIEWPORT, type ViewState } from './sync';
