// More public tables for the quality and honesty benchmarks, of the kinds users send where an additive model is
// tested hardest: small wide numeric signal tables, a wide biomarker table under 500 rows, sensor and image
// measurements, imbalanced many-column survey tables, insurance, labour and credit tables. All from Debian's R
// dataset packages, read through Rscript as bench/datasets.ts reads the others (readRDataFrame). realTables lists
// them after the older tables, so the older tables keep their permutation seeds (bench/honesty.ts).
import { readRDataFrame, type Dataset, type TableInfo } from './datasets.ts';

const idOf = (prefix: string, i: number, width: number) => `${prefix}${String(i + 1).padStart(width, '0')}`;

/** An R data frame's rows: an entity id first, the columns `drop` leaves, then `outcome` (yes / no) last. */
function rTable(
  name: string,
  rPackage: string,
  object: string,
  debian: string,
  idPrefix: string,
  outcomeOf: (row: Record<string, string>) => { outcome: string; drop: string[] },
): Dataset {
  const raw = readRDataFrame(rPackage, object, debian);
  const width = String(raw.length).length;
  const rows = raw.map((r, i) => {
    const { outcome, drop } = outcomeOf(r);
    const kept = Object.fromEntries(Object.entries(r).filter(([k]) => !drop.includes(k)));
    return { [`${idPrefix}_id`]: idOf(idPrefix[0], i, width), ...kept, outcome };
  });
  return { name, rows, entityColumn: `${idPrefix}_id`, outcomeColumn: 'outcome', positiveValue: 'yes' };
}

const yes = (b: boolean) => (b ? 'yes' : 'no');

/**
 * Sonar returns (Gorman and Sejnowski; mlbench `Sonar`): 208 sweeps x 60 band energies V1..V60 (0 to 1).
 * Outcome: a metal cylinder (Class M, 111) rather than a rock. Small and wide; the signal lies in how bands
 * move together.
 */
export function loadSonar(): Dataset {
  return rTable('sonar', 'mlbench', 'Sonar', 'r-cran-mlbench', 'sweep', (r) => ({ outcome: yes(r.Class === 'M'), drop: ['Class'] }));
}

/**
 * Ionosphere radar returns (Sigillito et al., Johns Hopkins APL; mlbench `Ionosphere`): 351 returns x 34
 * columns (V1 is 0/1, V2 is constant, V3..V34 are the real and imaginary parts of 16 pulse
 * autocorrelations). Outcome: a bad return (126), one that shows no structure in the ionosphere.
 */
export function loadIonosphere(): Dataset {
  return rTable('ionosphere', 'mlbench', 'Ionosphere', 'r-cran-mlbench', 'return', (r) => ({
    outcome: yes(r.Class === 'bad'),
    drop: ['Class'],
  }));
}

/**
 * Alzheimer's disease biomarkers (Craig-Schapiro et al. 2011; modeldata `ad_data`): 333 patients x 130
 * columns (124 protein levels in cerebrospinal fluid, age-related tau and amyloid measures, APOE genotype
 * as 6 labels). Outcome: Class Impaired (91), mild cognitive impairment or worse.
 */
export function loadAdData(): Dataset {
  return rTable('ad_data', 'modeldata', 'ad_data', 'r-cran-modeldata', 'patient', (r) => ({
    outcome: yes(r.Class === 'Impaired'),
    drop: ['Class'],
  }));
}

/**
 * Musk molecules, version 1 (Dietterich et al. 1997; kernlab `musk`): 476 conformations x 166 shape
 * distances. Outcome: Class 1, a musk (207). Wide and small: more columns than a third of its rows.
 */
export function loadMusk(): Dataset {
  return rTable('musk', 'kernlab', 'musk', 'r-cran-kernlab', 'molecule', (r) => ({ outcome: yes(r.Class === '1'), drop: ['Class'] }));
}

/**
 * Cell segmentation in high-content screening (Hill et al. 2007; modeldata `cells`): 2,019 cells x 56 image
 * measurements (intensity, shape and texture per channel). Outcome: class PS, poorly segmented (1,300).
 * The authors' train/test column `case` is dropped.
 */
export function loadCells(): Dataset {
  return rTable('cells', 'modeldata', 'cells', 'r-cran-modeldata', 'cell', (r) => ({
    outcome: yes(r.class === 'PS'),
    drop: ['class', 'case'],
  }));
}

/**
 * Landsat multi-spectral scanner pixels (StatLog Satellite; mlbench `Satellite`): 6,435 3x3 neighbourhoods x
 * 36 band values (4 bands x 9 pixels). Outcome: the centre pixel is damp grey soil (626, 9.7%), the class
 * most often confused with its neighbours grey soil and very damp grey soil, so only joint band values tell it.
 */
export function loadSatellite(): Dataset {
  return rTable('satellite', 'mlbench', 'Satellite', 'r-cran-mlbench', 'pixel', (r) => ({
    outcome: yes(r.classes === 'damp grey soil'),
    drop: ['classes'],
  }));
}

/**
 * The CoIL 2000 insurance challenge (Sentient Machine Research; kernlab `ticdata`): 9,822 customers x 85
 * columns, 43 socio-demographic shares of the customer's postcode (ordered labels such as "1 - 10%") and 42
 * product holdings. Outcome: CARAVAN insurance (586, 6.0%). An imbalanced many-column survey table, its
 * columns labels rather than numbers (the peers one-hot them).
 */
export function loadTicdata(): Dataset {
  return rTable('ticdata', 'kernlab', 'ticdata', 'r-cran-kernlab', 'customer', (r) => ({
    outcome: yes(r.CARAVAN === 'insurance'),
    drop: ['CARAVAN'],
  }));
}

/**
 * The 2018 Stack Overflow developer survey, as modeldata `stackoverflow` keeps it: 5,594 respondents x 20
 * columns (country, salary, years coding, company size, open-source work, 15 answers as 0/1). Outcome: works
 * remotely (575, 10.3%).
 */
export function loadStackoverflow(): Dataset {
  return rTable('stackoverflow', 'modeldata', 'stackoverflow', 'r-cran-modeldata', 'respondent', (r) => ({
    outcome: yes(r.Remote === 'Remote'),
    drop: ['Remote'],
  }));
}

/**
 * IBM's HR attrition sample (modeldata `attrition`): 1,470 employees x 30 columns (pay, tenure, travel, role,
 * satisfaction scores as ordered labels). Outcome: Attrition Yes (237, 16.1%).
 */
export function loadAttrition(): Dataset {
  return rTable('attrition', 'modeldata', 'attrition', 'r-cran-modeldata', 'employee', (r) => ({
    outcome: yes(r.Attrition === 'Yes'),
    drop: ['Attrition'],
  }));
}

/**
 * US Medical Expenditure Panel Survey 1996 (AER `HealthInsurance`): 8,802 workers x 10 columns (health, age,
 * limits, gender, marriage, self-employment, family size, region, ethnicity, education). Outcome: the worker has
 * health insurance (7,052, 80.1%).
 */
export function loadHealthInsurance(): Dataset {
  return rTable('health_insurance', 'AER', 'HealthInsurance', 'r-cran-aer', 'worker', (r) => ({
    outcome: yes(r.insurance === 'yes'),
    drop: ['insurance'],
  }));
}

/**
 * Swiss labour market participation of married women, 1981 health survey (Gerfin 1996; AER `SwissLabor`):
 * 872 women x 6 columns (non-labour income, age, education, young and older children, foreign). Outcome:
 * participates (401, 46.0%).
 */
export function loadSwissLabor(): Dataset {
  return rTable('swiss_labor', 'AER', 'SwissLabor', 'r-cran-aer', 'woman', (r) => ({
    outcome: yes(r.participation === 'yes'),
    drop: ['participation'],
  }));
}

/**
 * Boston HMDA mortgage applications 1990 (Munnell et al. 1996; AER `HMDA`): 2,380 applications x 13
 * columns (payments to income, housing expense, loan to value, credit histories, self-employment, insurance
 * denied, condominium, race, single, high school, unemployment rate). Outcome: denied (285, 12.0%).
 */
export function loadHmda(): Dataset {
  return rTable('hmda', 'AER', 'HMDA', 'r-cran-aer', 'application', (r) => ({ outcome: yes(r.deny === 'yes'), drop: ['deny'] }));
}

/** The tables above as catalogue entries, in report order (grouped by kind). */
export function publicTables(): TableInfo[] {
  const mlbench = { licence: 'GPL-2 package; UCI data', debian: ['r-cran-mlbench'] };
  const modeldata = { licence: 'MIT package', debian: ['r-cran-modeldata'] };
  const kernlab = { licence: 'GPL-2 package; UCI data', debian: ['r-cran-kernlab'] };
  const aer = { licence: 'GPL-2 | GPL-3 package', debian: ['r-cran-aer'] };
  return [
    {
      name: 'sonar',
      load: loadSonar,
      source: 'Debian r-cran-mlbench, R object Sonar',
      outcome: 'metal cylinder (Class M) rather than rock',
      fills: 'small wide numeric signal table (208 x 60)',
      ...mlbench,
    },
    {
      name: 'ionosphere',
      load: loadIonosphere,
      source: 'Debian r-cran-mlbench, R object Ionosphere',
      outcome: 'bad radar return (Class bad)',
      fills: 'small numeric signal table (351 x 34)',
      ...mlbench,
    },
    {
      name: 'ad_data',
      load: loadAdData,
      source: 'Debian r-cran-modeldata, R object ad_data',
      outcome: 'cognitively impaired (Class Impaired)',
      fills: 'wide biomarker table under 500 rows (333 x 130)',
      ...modeldata,
    },
    {
      name: 'musk',
      load: loadMusk,
      source: 'Debian r-cran-kernlab, R object musk',
      outcome: 'a musk (Class 1)',
      fills: 'small wide numeric table (476 x 166)',
      ...kernlab,
    },
    {
      name: 'cells',
      load: loadCells,
      source: 'Debian r-cran-modeldata, R object cells (case dropped)',
      outcome: 'poorly segmented (class PS)',
      fills: 'image measurements (2,019 x 56)',
      ...modeldata,
    },
    {
      name: 'satellite',
      load: loadSatellite,
      source: 'Debian r-cran-mlbench, R object Satellite',
      outcome: 'damp grey soil against the five other classes',
      fills: 'sensor table, imbalanced (6,435 x 36, 9.7%)',
      ...mlbench,
    },
    {
      name: 'ticdata',
      load: loadTicdata,
      source: 'Debian r-cran-kernlab, R object ticdata (CoIL 2000)',
      outcome: 'holds CARAVAN insurance',
      fills: 'imbalanced many-column survey table (9,822 x 85, 6.0%)',
      ...kernlab,
    },
    {
      name: 'stackoverflow',
      load: loadStackoverflow,
      source: 'Debian r-cran-modeldata, R object stackoverflow',
      outcome: 'works remotely',
      fills: 'imbalanced survey table (5,594 x 20, 10.3%)',
      ...modeldata,
    },
    {
      name: 'attrition',
      load: loadAttrition,
      source: 'Debian r-cran-modeldata, R object attrition',
      outcome: 'left (Attrition Yes)',
      fills: 'labour table, imbalanced (1,470 x 30, 16.1%)',
      ...modeldata,
    },
    {
      name: 'health_insurance',
      load: loadHealthInsurance,
      source: 'Debian r-cran-aer, R object HealthInsurance',
      outcome: 'has health insurance',
      fills: 'insurance survey table (8,802 x 10)',
      ...aer,
    },
    {
      name: 'swiss_labor',
      load: loadSwissLabor,
      source: 'Debian r-cran-aer, R object SwissLabor',
      outcome: 'participates in the labour market',
      fills: 'labour table (872 x 6)',
      ...aer,
    },
    {
      name: 'hmda',
      load: loadHmda,
      source: 'Debian r-cran-aer, R object HMDA',
      outcome: 'mortgage denied',
      fills: 'credit table, imbalanced (2,380 x 13, 12.0%)',
      ...aer,
    },
  ];
}
