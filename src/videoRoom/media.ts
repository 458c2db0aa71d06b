/**
 * The local camera and microphone, and what went wrong opening them: the spec's three
 * webcam errors (section 8: unsupported, denied, not found), each a locale key, told
 * apart from the browser's DOMException names (which differ between browsers).
 */
export type WebcamProblem = 'unsupported' | 'denied' | 'notFound';

export const WEBCAM_PROBLEM_TEXT: Record<WebcamProblem, string> = {
  unsupported: 'error.webcamUnsupported',
  denied: 'error.webcamDenied',
  notFound: 'error.webcamNotFound',
};

const DENIED = new Set(['NotAllowedError', 'PermissionDeniedError', 'SecurityError']);
const NOT_FOUND = new Set(['NotFoundError', 'DevicesNotFoundError', 'OverconstrainedError', 'NotReadableError', 'TrackStartError']);

/** Which of the three a failure of getUserMedia is (anything unknown counts as unsupported). */
export function webcamProblem(error: unknown): WebcamProblem {
  const name = (error as { name?: string } | null)?.name ?? '';
  if (DENIED.has(name)) return 'denied';
  if (NOT_FOUND.has(name)) return 'notFound';
  return 'unsupported';
}

export class WebcamError extends Error {
  constructor(readonly problem: WebcamProblem) {
    super(WEBCAM_PROBLEM_TEXT[problem]);
  }
}

/** Camera and microphone; a camera alone when there is no microphone. */
export async function openCamera(): Promise<MediaStream> {
  // No mediaDevices: an old browser, or a page not served over HTTPS.
  if (typeof navigator === 'undefined' || !navigator.mediaDevices?.getUserMedia) throw new WebcamError('unsupported');
  try {
    return await navigator.mediaDevices.getUserMedia({ video: { width: { ideal: 640 }, height: { ideal: 480 } }, audio: true });
  } catch (first) {
    if (webcamProblem(first) !== 'notFound') throw new WebcamError(webcamProblem(first));
    try {
      return await navigator.mediaDevices.getUserMedia({ video: true });
    } catch (second) {
      throw new WebcamError(webcamProblem(second));
    }
  }
}

/** The screen for sharing, or undefined when the user cancels. */
export async function openScreen(): Promise<MediaStreamTrack | undefined> {
  if (!navigator.mediaDevices?.getDisplayMedia) return undefined;
  try {
    const stream = await navigator.mediaDevices.getDisplayMedia({ video: true, audio: false });
    return stream.getVideoTracks()[0];
  } catch {
    return undefined;
  }
}
