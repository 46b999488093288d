import { useCallback, useEffect, useRef, useState } from 'react';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => Promise<void>;
}

/** Loads `load()` on mount and whenever `key` changes; `reload` refetches. A stale answer never overwrites a newer one. */
export function useResource<T>(load: () => Promise<T>, key: string = ''): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const value = await loadRef.current();
      if (mine !== generation.current) return;
      setData(value);
      setError(undefined);
    } catch (caught) {
      if (mine === generation.current) setError(caught);
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, []);

  useEffect(() => {
    void reload();
  }, [reload, key]);

  return { data, error, loading, reload };
}
