export type DatabaseEngine = 'sqlite' | 'postgres';
