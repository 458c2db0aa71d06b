/**
 * umi's route loading component (convention: src/loading.tsx): shown while a route's
 * chunk loads. Spec section 2: a progress bar during navigation, no spinner.
 */
import NProgress from 'nprogress';
import 'nprogress/nprogress.css';
import { useEffect } from 'react';

NProgress.configure({ showSpinner: false });

export default function Loading() {
  useEffect(() => {
    NProgress.start();
    return () => {
      NProgress.done();
    };
  }, []);
  return null;
}
