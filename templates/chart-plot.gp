{{! The plot command of chart.gp: one curve (or set of bars) per series,
    with the 95 % confidence interval as error bars. }}
plot \
{{#series}}
  '{{data}}' index {{index}} using 1:2:3:4{{#bar}}:5 with boxerrorbars{{/bar}}{{#line}} with yerrorlines{{/line}} ls {{@number}} title '{{title}}'{{^@last}}, \{{/@last}}
{{/series}}
