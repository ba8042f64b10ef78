module.exports = () => require('./jest-temp-root').teardown();
