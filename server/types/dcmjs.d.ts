// dcmjs ships no type declarations; the archive uses a handful of its calls, typed where used.
declare module 'dcmjs';
