/**
 * The graphic captcha of one form: hidden until the server asks for it (GET
 * /captcha/required, or a UAA107/UAA002 reply), then an image the user can click to
 * refresh. A captcha is single use, so the forms refresh it after every attempt.
 */
import { useCallback, useRef, useState } from 'react';
import { fetchCaptcha, type CaptchaAnswer } from '../../services/uaa';

export interface CaptchaState {
  visible: boolean;
  loading: boolean;
  captchaKey?: string;
  image?: string;
  /** The image could not be fetched (click to retry). */
  failed: boolean;
}

export interface Captcha extends CaptchaState {
  /** Shows the captcha (if hidden) with a fresh image. */
  refresh(): Promise<void>;
  hide(): void;
  /** What to send with the next call: the key and the typed code, or nothing when hidden. */
  answer(code: string | undefined): CaptchaAnswer;
}

export function useCaptcha(): Captcha {
  const [state, setState] = useState<CaptchaState>({ visible: false, loading: false, failed: false });
  const seq = useRef(0);

  const refresh = useCallback(async () => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, visible: true, loading: true, failed: false }));
    try {
      const c = await fetchCaptcha();
      if (mine === seq.current) setState({ visible: true, loading: false, failed: false, captchaKey: c.captchaKey, image: c.image });
    } catch {
      if (mine === seq.current) setState((s) => ({ ...s, loading: false, failed: true, captchaKey: undefined, image: undefined }));
    }
  }, []);

  const hide = useCallback(() => {
    seq.current += 1;
    setState({ visible: false, loading: false, failed: false });
  }, []);

  const answer = useCallback(
    (code: string | undefined): CaptchaAnswer => (state.visible && state.captchaKey ? { captchaKey: state.captchaKey, captchaCode: code?.trim() } : {}),
    [state.visible, state.captchaKey],
  );

  return { ...state, refresh, hide, answer };
}
