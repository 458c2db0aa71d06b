/**
 * The browser side effects of request replies: antd toasts and modals (from the App
 * context when mounted, so they follow theme and locale; else antd's static methods),
 * page reload, and the session: 001001's confirm and an invalid token (UAA005) end it
 * on this device without calling the server (src/session/store.ts).
 */
import { App, message as staticMessage, Modal } from 'antd';
import i18n, { translateOr } from '../i18n';
import { clearSession, onRequestFailure } from '../session/store';
import type { ReplyUi } from './request';

type AppApi = Pick<ReturnType<typeof App.useApp>, 'message' | 'modal'>;

let bound: AppApi | undefined;
let reloginOpen = false;

/** Called by the app root with App.useApp()'s instances. */
export function bindAntdApp(instances: AppApi): void {
  bound = instances;
}

export const browserUi: ReplyUi = {
  error(text, seconds) {
    (bound?.message ?? staticMessage).error(text, seconds);
  },
  confirm(title, content, onOk) {
    // Several calls failing with 001001 at once must not stack modals.
    if (reloginOpen) return;
    reloginOpen = true;
    const confirm = bound?.modal.confirm ?? Modal.confirm;
    confirm({
      title,
      content,
      okCancel: false,
      okText: i18n.t('common.ok'),
      onOk: () => {
        reloginOpen = false;
        onOk();
      },
    });
  },
  reload(delayMs) {
    setTimeout(() => window.location.reload(), delayMs);
  },
  clearToken() {
    clearSession();
  },
  t(key, fallback) {
    return translateOr(key, fallback ?? key);
  },
  onFailure(error) {
    onRequestFailure(error);
  },
};
