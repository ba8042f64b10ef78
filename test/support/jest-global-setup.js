module.exports = () => require('./jest-temp-root').setup();
