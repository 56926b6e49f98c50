// No fetch() handler: every request is the assets' (a single-page application).
export default {};
