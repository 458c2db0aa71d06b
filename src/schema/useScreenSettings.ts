/**
 * The stored settings a generic screen follows (./layout.ts merges them with the view):
 * the user's list setting of a view, and the current hospital's layout of a view's form.
 * Each is read when the screen mounts (the form's again when the hospital changes), so a
 * change made elsewhere shows on the next load.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { screenSettings } from '../services/screenSettings';
import { useSession } from '../session/store';
import { applyFormLayout, type FormLayout, type ScreenSetting } from './layout';
import { allows, usePermissionMap } from './permissions';
import type { View } from '../shared/schema/types';
import { viewName } from '../shared/schema/views';

export function useUserScreenSetting(module: string) {
  const [state, setState] = useState<{ loaded: boolean; setting: ScreenSetting | null }>({ loaded: false, setting: null });
  // Saves merge into the latest value, not the one of the render that scheduled them.
  const latest = useRef<ScreenSetting | null>(null);

  useEffect(() => {
    let live = true;
    setState({ loaded: false, setting: null });
    screenSettings
      .userSetting(module)
      .catch(() => null)
      .then((setting) => {
        if (!live) return;
        latest.current = setting;
        setState({ loaded: true, setting });
      });
    return () => {
      live = false;
    };
  }, [module]);

  /** Replaces the parts in `patch` and stores the whole setting. */
  const save = useCallback(
    async (patch: ScreenSetting) => {
      const next = { ...latest.current, ...patch };
      latest.current = next;
      setState({ loaded: true, setting: next });
      return screenSettings.saveUserSetting(module, next);
    },
    [module],
  );

  return { ...state, save };
}

export function useFormLayout(view: View) {
  const hospitalId = useSession().user?.hospitalId ?? null;
  const module = viewName(view);
  const [state, setState] = useState<{ loaded: boolean; layout: FormLayout | null }>({ loaded: false, layout: null });

  useEffect(() => {
    let live = true;
    setState({ loaded: false, layout: null });
    // No hospital chosen: nothing is stored for it, the view's own layout applies.
    const read = hospitalId === null ? Promise.resolve(null) : screenSettings.formLayout(module).catch(() => null);
    read.then((layout) => {
      if (live) setState({ loaded: true, layout });
    });
    return () => {
      live = false;
    };
  }, [module, hospitalId]);

  const laidOut = useMemo(() => applyFormLayout(view, state.layout), [view, state.layout]);
  /** After a save: the form follows at once. */
  const setLayout = useCallback((layout: FormLayout) => setState({ loaded: true, layout }), []);
  return { ...state, view: laidOut, setLayout };
}

/** The page-configuration dialog is for holders of reportPage:edit (the server checks again). */
export function useCanConfigurePage(): boolean {
  return allows(usePermissionMap(), 'reportPage', 'edit');
}
