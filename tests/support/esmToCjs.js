// A jest transform for packages that ship ES modules only (janode): left as they are when
// jest loads them as ES modules (npm test runs it with --experimental-vm-modules), made
// CommonJS when it requires them (a plain `npx jest`, whose sandbox has no import()).
const crypto = require('node:crypto');
const babel = require('@babel/core');

module.exports = {
  process(source, filename, options) {
    if (options.supportsStaticESM) return { code: source };
    const out = babel.transformSync(source, { filename, babelrc: false, configFile: false, sourceMaps: 'inline', plugins: ['@babel/plugin-transform-modules-commonjs'] });
    return { code: out.code };
  },
  // The two forms of one file must not share a cache entry.
  getCacheKey(source, filename, options) {
    return crypto.createHash('sha1').update(`esmToCjs1\0${filename}\0${options.supportsStaticESM}\0`).update(source).digest('hex');
  },
};
