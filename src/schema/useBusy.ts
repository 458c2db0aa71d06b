/**
 * An action behind a button that is busy while it runs. A failure was already shown
 * where it happened (invalid fields on the form, a refusal by the request wrapper), so
 * it ends here: the dialog stays open with what the user entered.
 */
import { useState } from 'react';

export function useBusy(action: () => Promise<void>): [run: () => Promise<void>, busy: boolean] {
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      await action();
    } catch {
      // shown already (see above)
    } finally {
      setBusy(false);
    }
  };
  return [run, busy];
}
