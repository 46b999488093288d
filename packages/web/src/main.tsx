import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { initialiseAuth } from './auth/token-store';
import './styles.css';

initialiseAuth(window.location, window.history, window.sessionStorage);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
