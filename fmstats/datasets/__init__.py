"""Bundled real data sets and generators of the thesis's synthetic data.

Real data (shipped gzip-compressed in the package ``fmstats.data``; see
``data/README.md`` for sources, licences and checksums):

* :func:`load_titanic` -- the 1,309 passengers of the Titanic (OpenML 40945).
* :func:`load_adult` -- the UCI Adult census income data, train and test files.
* :func:`load_yeast` -- the Yeast multi-label gene-function data (Mulan).
* :func:`load_debtags` -- Debian packages and their debtags: 30,300 instances,
  581 labels, hashed text features (sparse), built by ``data/make_debtags.py``.

Synthetic data of the thesis:

* :func:`make_thesis_svm_data` -- data sets A1, A2, B1, B2 of chapter 8, section 8.1.
* :func:`make_thesis_noisy_data` -- data sets A and B of chapter 9, sections 9.1-9.2,
  with the Beta-distributed label noise.
* :func:`make_votes` -- yes/no counts of a panel of annotators for given probabilities.

Covariances.  The thesis writes the class covariances as
``Sigma = (a, b)^T I_2``; this module reads that as the diagonal matrix
``diag(a, b)``, i.e. independent features with *variances* ``a`` and ``b``
(standard deviations ``sqrt(a)`` and ``sqrt(b)``).
"""
from ._catalog import format_catalog  # noqa: F401 (the command line's listing)
from ._datasets import (ADULT_COLUMNS, Debtags, list_datasets, load_adult, load_debtags,
                        load_titanic, load_yeast, make_thesis_noisy_data, make_thesis_svm_data,
                        make_votes, thesis_label_noise, THESIS_NOISY_DESIGNS,
                        THESIS_SVM_DESIGNS, TITANIC_COLUMNS, titanic_complete,
                        yeast_feature_names, yeast_label_names, YEAST_N_TEST, YEAST_N_TRAIN)

__all__ = ['list_datasets', 'load_titanic', 'titanic_complete', 'TITANIC_COLUMNS', 'load_adult',
           'ADULT_COLUMNS', 'load_yeast', 'yeast_feature_names', 'yeast_label_names',
           'YEAST_N_TRAIN', 'YEAST_N_TEST', 'load_debtags', 'Debtags', 'make_thesis_svm_data',
           'make_thesis_noisy_data', 'make_votes', 'thesis_label_noise', 'THESIS_SVM_DESIGNS',
           'THESIS_NOISY_DESIGNS']
