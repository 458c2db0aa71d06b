// CSS modules (umi compiles `import styles from './x.less'` as a module). umi's own
// declarations live in src/.umi, which tsconfig's "src" glob skips (dot folder).
declare module '*.less' {
  const classes: { readonly [key: string]: string };
  export default classes;
}
