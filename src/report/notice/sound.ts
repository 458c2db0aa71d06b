/**
 * The remote pop-up's alert, looped until stopped: the user's sound (examNotice.audioUrl)
 * or, without one, a short two-tone beep made with WebAudio (nothing fetched). A
 * browser that refuses to play before the user has interacted stays silent; the
 * pop-up is the notice either way.
 */
type AudioContextClass = typeof AudioContext;

const BEEP_EVERY_MS = 1500;

export function startAlert(audioUrl?: string): () => void {
  if (audioUrl) {
    const audio = new Audio(audioUrl);
    audio.loop = true;
    void audio.play().catch(() => undefined);
    return () => {
      audio.pause();
      audio.removeAttribute('src');
    };
  }
  const Context = (window.AudioContext ?? (window as unknown as { webkitAudioContext?: AudioContextClass }).webkitAudioContext) as AudioContextClass | undefined;
  if (!Context) return () => undefined;
  const ctx = new Context();
  const tone = (frequency: number, at: number) => {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(0.2, at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.18);
    osc.connect(gain).connect(ctx.destination);
    osc.start(at);
    osc.stop(at + 0.2);
  };
  const beep = () => {
    void ctx.resume().catch(() => undefined);
    tone(880, ctx.currentTime);
    tone(660, ctx.currentTime + 0.22);
  };
  beep();
  const timer = setInterval(beep, BEEP_EVERY_MS);
  return () => {
    clearInterval(timer);
    void ctx.close().catch(() => undefined);
  };
}
