/**
 * What a feature hands the engine: its bespoke dialogs, form asides and form controls
 * by name, the names views use. The engine imports no feature; the app lists the
 * features' manifests once (src/features) and registers them here before the first
 * screen renders. Dialogs and asides stay loaders, so a feature's code loads when a
 * view first opens one. Any name registered twice throws.
 */
import { registerDialog, type DialogLoader } from './dialogs';
import { registerFormAside, type FormAsideLoader } from './formAsides';
import { registerControl, type RegisteredComponent } from './registry';

export interface FeatureManifest {
  /** For messages only. */
  name: string;
  /** View `dialog.component` names → the dialog's module, loaded on first use. */
  dialogs?: Record<string, DialogLoader>;
  /** View `form.aside.component` names → the aside's module, loaded on first use. */
  formAsides?: Record<string, FormAsideLoader>;
  /** View field `component` names → a Formily-connected control (needed as soon as a form renders, so not lazy). */
  controls?: Record<string, RegisteredComponent>;
}

const registeredFeatures = new Set<string>();

/** Registers every manifest's names; a feature or a name given twice throws. */
export function registerFeatures(manifests: readonly FeatureManifest[]): void {
  for (const m of manifests) {
    if (registeredFeatures.has(m.name)) throw new Error(`feature ${m.name} registered twice`);
    registeredFeatures.add(m.name);
    for (const [name, loader] of Object.entries(m.dialogs ?? {})) registerDialog(name, loader);
    for (const [name, loader] of Object.entries(m.formAsides ?? {})) registerFormAside(name, loader);
    for (const [name, component] of Object.entries(m.controls ?? {})) registerControl(name, component);
  }
}
