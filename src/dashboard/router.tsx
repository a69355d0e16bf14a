/**
 * Routing is react-router's (a browser router under /app: deep links survive a reload, the server
 * answers index.html for each). This module keeps the few names the pages import in one place.
 */
export { Link, NavLink, Navigate, Outlet, useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
