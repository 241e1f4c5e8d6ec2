export * from './refusal-message';
export * from './repair-arguments';
export * from './scripted-agent';
