/** List filters kept in the URL's search params, so a filtered list survives a reload and can be shared. */
import { useSearchParams } from '../../router.tsx';

export function useUrlFilters<K extends string>(
  names: readonly K[],
): { values: Partial<Record<K, string>>; set(name: K, value: string): void } {
  const [params, setParams] = useSearchParams();
  const values: Partial<Record<K, string>> = {};
  for (const name of names) {
    const value = params.get(name);
    if (value) values[name] = value;
  }
  return {
    values,
    set(name, value) {
      const next = new URLSearchParams(params);
      if (value) next.set(name, value);
      else next.delete(name);
      setParams(next, { replace: true });
    },
  };
}
