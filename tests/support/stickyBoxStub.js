// Stands in for react-sticky-box (ES modules only) under jest; see jest.config.js.
module.exports = { __esModule: true, default: () => null };
