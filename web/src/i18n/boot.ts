// Loaded by every page's HTML before the page's own script: draws the site navigation
// (shell/site_nav.ts), applies the chosen theme, picks the locale, rewrites the marked
// text, fills the language switcher. (Its own module so that a page script being edited
// elsewhere need not import it; both share the one i18n module instance.)
import { initPage } from './i18n';
import { initTheme } from '../widgets/theme';
import { renderSiteNav } from '../shell/site_nav';

renderSiteNav();
initTheme();
initPage();
